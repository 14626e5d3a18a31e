import Foundation

/// A `prefetch` child that a test can signal while it runs (crash and interrupt
/// tests), and whose stderr it can await a line of — or any other program, with
/// its stdout watched instead (a display app's stand-in that says "leased").
final class RunningCommand: @unchecked Sendable {
    private let process = Process()
    private let out = Pipe()
    private let err = Pipe()
    private let watchesStandardOutput: Bool
    private let lock = NSLock()
    /// What the watched stream (stderr, unless told) has said so far.
    private var errData = Data()
    private var errClosed = false
    private var waiters: [(text: String, continuation: CheckedContinuation<Bool, Never>)] = []
    private let errDone = DispatchSemaphore(value: 0)

    convenience init(_ arguments: [String]) throws {
        try self.init(executable: CommandRunner.binDirectory.appendingPathComponent("prefetch"), arguments)
    }

    init(executable: URL, _ arguments: [String], watchingStandardOutput: Bool = false) throws {
        watchesStandardOutput = watchingStandardOutput
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["PREFETCH_CONFIG": CommandRunner.noConfiguration]) { $1 }
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // A thread of its own reads stderr with blocking reads: libdispatch's
        // readability sources on Linux crashed (in _dispatch_event_loop_drain)
        // when one was cancelled while its pipe closed.
        let handle = (watchingStandardOutput ? out : err).fileHandleForReading
        Thread { [self] in
            while true {
                let chunk = handle.availableData
                received(chunk)
                if chunk.isEmpty { break }
            }
            errDone.signal()
        }.start()
    }

    private func received(_ chunk: Data) {
        lock.withLock {
            if chunk.isEmpty {
                errClosed = true
            } else {
                errData.append(chunk)
            }
            let text = String(decoding: errData, as: UTF8.self)
            waiters.removeAll { waiter in
                guard errClosed || text.contains(waiter.text) else { return false }
                waiter.continuation.resume(returning: text.contains(waiter.text))
                return true
            }
        }
    }

    var pid: Int32 { process.processIdentifier }

    /// Not exited yet (a zombie not yet reaped counts as exited).
    var isRunning: Bool { process.isRunning }

    func signal(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Returns true once the child's stdout (when watched) holds `text`, false if it closed without.
    func stdoutContains(_ text: String) async -> Bool {
        precondition(watchesStandardOutput, "stdout is not watched")
        return await watchedContains(text)
    }

    /// Returns true once the child's stderr holds `text`, false if it closed without.
    func stderrContains(_ text: String) async -> Bool {
        precondition(!watchesStandardOutput, "stderr is not watched")
        return await watchedContains(text)
    }

    private func watchedContains(_ text: String) async -> Bool {
        await withCheckedContinuation { continuation in
            lock.withLock {
                let seen = String(decoding: errData, as: UTF8.self)
                if seen.contains(text) || errClosed {
                    continuation.resume(returning: seen.contains(text))
                } else {
                    waiters.append((text, continuation))
                }
            }
        }
    }

    /// Waits on a dispatch thread for the exit, collecting all output.
    func wait() async -> CommandResult {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { [self] in
                let otherData = (watchesStandardOutput ? err : out).fileHandleForReading.readDataToEndOfFile()
                errDone.wait()
                process.waitUntilExit()
                let status = process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
                let watched = lock.withLock { errData }
                let (stdout, stderr) = watchesStandardOutput ? (watched, otherData) : (otherData, watched)
                continuation.resume(returning: CommandResult(status: status, stdout: stdout, stderr: String(decoding: stderr, as: UTF8.self)))
            }
        }
    }
}

/// Every file below a folder with its bytes (directories marked as such),
/// to show a command left a cache byte-for-byte as it was — but for
/// `last-failure.json`, the record of a failed run that `status` shows
/// (docs/cache-format.md), which a refused manifest writes for `status` alone.
func snapshot(_ root: String) -> [String: Data] {
    var result: [String: Data] = [:]
    for path in FileManager.default.subpaths(atPath: root) ?? [] where path != "last-failure.json" {
        let full = "\(root)/\(path)"
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue {
            result[path] = FileManager.default.contents(atPath: full) ?? Data()
        } else {
            result[path] = Data("<dir>".utf8)
        }
    }
    return result
}

/// A server root of small distinct files, so that every URL is its own object.
/// `size` random bytes (rounded down to whole 8-byte words) written to `name`
/// in `directory`, which is made if need be: a body no compression or
/// coincidence can shorten.
func writeRandomFile(_ name: String, size: Int, in directory: String) throws -> Data {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    var generator = SystemRandomNumberGenerator()
    let data = Data((0..<size / 8).flatMap { _ in withUnsafeBytes(of: generator.next() as UInt64, Array.init) })
    try data.write(to: URL(fileURLWithPath: "\(directory)/\(name)"))
    return data
}

func writeStyleSheets(_ count: Int, in directory: String, bytes: Int = 4096, salt: String = "") throws -> [String] {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    return try (0..<count).map { index in
        let name = "style\(index).css"
        let rule = "/* \(salt) \(index) */ .m\(index) { color: #\(String(index, radix: 16)); }\n"
        let body = String(repeating: rule, count: max(1, bytes / rule.utf8.count))
        try Data(body.utf8).write(to: URL(fileURLWithPath: "\(directory)/\(name)"))
        return name
    }
}

/// HTML messages, one style sheet each.
func htmlMessages(_ names: [String], server: (String) -> String, query: String = "") -> [[String: Any]] {
    names.enumerated().map { index, name in
        inapp("html\(index)", ["type": "HTML", "asset_urls": [server(name + query)]])
    }
}
