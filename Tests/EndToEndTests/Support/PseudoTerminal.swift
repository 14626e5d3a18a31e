import Foundation

/// Runs `prefetch` with its stderr on a pseudo-terminal, as a person at a shell
/// sees it, and collects every byte written there (escape sequences included).
/// stdout stays a pipe, as in `prefetch run m.json | less`.
enum PseudoTerminal {
    struct Result: Sendable {
        var status: Int32
        var stdout: String
        /// What the terminal received, raw.
        var terminal: String
    }

    /// `columns`: the terminal's width, as a resized window would report it (0: unknown).
    static func prefetch(_ arguments: [String], environment extra: [String: String] = [:], columns: Int = 0) async throws -> Result {
        let master = LibC.posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard master >= 0, LibC.grantpt(master) == 0, LibC.unlockpt(master) == 0, let name = LibC.ptsname(master) else {
            throw PseudoTerminalError(description: "no pseudo-terminal: \(String(cString: strerror(errno)))")
        }
        var size = winsize(ws_row: 24, ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
        let slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard slave >= 0 else { throw PseudoTerminalError(description: "cannot open \(String(cString: name))") }

        let process = Process()
        process.executableURL = CommandRunner.binDirectory.appendingPathComponent("prefetch")
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        for key in ["PREFETCH_CACHE_DIR", "CACHE_DIRECTORY", "XDG_CACHE_HOME", "NO_COLOR", "PREFETCH_LOG_LEVEL"] { environment[key] = nil }
        environment["PREFETCH_CONFIG"] = CommandRunner.noConfiguration
        environment["TERM"] = "xterm"
        environment.merge(extra) { $1 }
        process.environment = environment
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle(fileDescriptor: slave, closeOnDealloc: false)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Only the child holds the terminal now, so reading ends (EIO) when it exits.
        close(slave)

        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let group = DispatchGroup()
                nonisolated(unsafe) var terminal = [UInt8]()
                DispatchQueue.global().async(group: group) {
                    var buffer = [UInt8](repeating: 0, count: 4096)
                    while true {
                        let count = read(master, &buffer, buffer.count)
                        if count < 0 && errno == EINTR { continue }
                        guard count > 0 else { break }
                        terminal += buffer[0..<count]
                    }
                    close(master)
                }
                let stdout = out.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                group.wait()
                continuation.resume(returning: Result(
                    status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                    terminal: String(decoding: terminal, as: UTF8.self)))
            }
        }
    }
}

struct PseudoTerminalError: Error, CustomStringConvertible {
    var description: String
}

/// The pty calls of <stdlib.h>, which Swift's Glibc module leaves out (they sit
/// behind _XOPEN_SOURCE): looked up in the C library at run time.
private enum LibC {
    nonisolated(unsafe) private static let process = dlopen(nil, RTLD_NOW)

    private static func function<T>(_ name: String, as type: T.Type) -> T {
        guard let symbol = dlsym(process, name) else { fatalError("libc has no \(name)") }
        return unsafeBitCast(symbol, to: type)
    }

    static let posix_openpt = function("posix_openpt", as: (@convention(c) (Int32) -> Int32).self)
    static let grantpt = function("grantpt", as: (@convention(c) (Int32) -> Int32).self)
    static let unlockpt = function("unlockpt", as: (@convention(c) (Int32) -> Int32).self)
    static let ptsname = function("ptsname", as: (@convention(c) (Int32) -> UnsafeMutablePointer<CChar>?).self)
}
