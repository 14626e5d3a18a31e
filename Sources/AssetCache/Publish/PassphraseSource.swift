#if canImport(Glibc)
import Glibc
#endif

/// Where a sealed key's passphrase comes from: a file or the terminal, never
/// argv or the environment, which other users' `ps` and a child's
/// /proc/PID/environ can read.
public enum PassphraseSource: Sendable {
    /// The first line of a file only its owner may read.
    case file(String)
    /// Typed at the controlling terminal (/dev/tty) with echo off, as
    /// signify's readpassphrase asks; `prompt` names the key.
    case terminal(prompt: String)
    /// No passphrase to give: a sealed key is refused.
    case notGiven

    /// The passphrase's bytes, without the line's end.
    func read() throws(SignifySecretKeyError) -> [UInt8] {
        let line: [UInt8]
        switch self {
        case .file(let path):
            let data = try PrivateFile.read(path, maxSize: Self.maxLength, as: "passphrase file")
            line = Array(data.prefix { $0 != UInt8(ascii: "\n") })
        case .terminal(let prompt):
            line = try Self.readTerminal(prompt: prompt)
        case .notGiven:
            throw .passphrase("the key is protected by a passphrase, and none was given")
        }
        guard !line.isEmpty else { throw .passphrase("it is empty") }
        return line
    }

    /// A passphrase longer than this is not one (readpassphrase's buffer is 1024).
    static let maxLength = 1024

    /// Prompt on /dev/tty, echo off while the line is typed, then restored.
    private static func readTerminal(prompt: String) throws(SignifySecretKeyError) -> [UInt8] {
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { throw .passphrase("no terminal to ask on (/dev/tty: \(String(cString: strerror(errno)))); give a passphrase file") }
        defer { close(fd) }
        var saved = termios()
        guard tcgetattr(fd, &saved) == 0 else { throw .passphrase("/dev/tty is not a terminal") }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        // Echo off (and what was typed ahead flushed) before the prompt, as
        // readpassphrase(3) does: after it, TCSAFLUSH would throw away an
        // answer typed, or sent by a script, as soon as the prompt showed.
        guard tcsetattr(fd, TCSAFLUSH, &quiet) == 0 else { throw .passphrase("cannot turn off echo on /dev/tty") }
        _ = Array(prompt.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        defer {
            _ = tcsetattr(fd, TCSAFLUSH, &saved)
            _ = write(fd, "\n", 1)
        }
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while line.count <= maxLength {
            let got = LibC.read(fd, &byte, 1)
            if got < 0 && errno == EINTR { continue }
            guard got > 0, byte != UInt8(ascii: "\n"), byte != UInt8(ascii: "\r") else { break }
            line.append(byte)
        }
        return line
    }
}
