#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// stderr, shared by the progress line and the log so that they do not garble
/// each other: a log line first erases the progress line, then draws it again
/// below itself.
final class Console: Sendable {
    static let standardError = Console(descriptor: STDERR_FILENO)
    static let standardOutput = Console(descriptor: STDOUT_FILENO)

    let descriptor: Int32
    /// The progress line on screen, if one is.
    private let status = Mutex<String?>(nil)

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    var isTerminal: Bool { isatty(descriptor) == 1 }

    /// Columns of the terminal, or nil when it is not one.
    var width: Int? {
        var size = winsize()
        guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// One line of text, below which the progress line (if any) is drawn again.
    func writeLine(_ text: String) {
        status.withLock { status in
            var out = status == nil ? "" : Self.eraseLine
            out += text + "\n"
            if let status { out += status }
            emit(out)
        }
    }

    /// Replaces the progress line in place: carriage return, erase, draw.
    func showStatus(_ line: String) {
        status.withLock { status in
            status = line
            emit(Self.eraseLine + line)
        }
    }

    /// Erases the progress line, leaving the cursor at the start of an empty line.
    func clearStatus() {
        status.withLock { status in
            guard status != nil else { return }
            status = nil
            emit(Self.eraseLine)
        }
    }

    static let eraseLine = "\r\u{1B}[2K"

    /// Bytes as they are, unbuffered, as the report and `--json` go to stdout.
    func write(_ bytes: some Collection<UInt8>) {
        emit(bytes)
    }

    private func emit(_ text: String) {
        emit(text.utf8)
    }

    private func emit(_ output: some Collection<UInt8>) {
        var bytes = Array(output)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            bytes = bytes.dropFirst(written)
        }
    }
}

/// ANSI colours, used only when the stream is a terminal and `NO_COLOR` is unset
/// (https://no-color.org), and never on a dumb terminal.
struct TextStyle: Sendable {
    var enabled: Bool

    static func forDescriptor(_ descriptor: Int32, environment: [String: String] = ProcessInfo.processInfo.environment) -> TextStyle {
        let noColor = !(environment["NO_COLOR"] ?? "").isEmpty
        return TextStyle(enabled: isatty(descriptor) == 1 && !noColor && environment["TERM"] != "dumb")
    }

    func red(_ text: String) -> String { paint(text, "31") }
    func green(_ text: String) -> String { paint(text, "32") }
    func yellow(_ text: String) -> String { paint(text, "33") }
    func bold(_ text: String) -> String { paint(text, "1") }
    func dim(_ text: String) -> String { paint(text, "2") }

    private func paint(_ text: String, _ code: String) -> String {
        enabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}
