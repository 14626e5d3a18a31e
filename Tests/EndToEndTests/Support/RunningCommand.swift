import Foundation

/// A `prefetch` child that a test can signal while it runs (crash and interrupt tests).
final class RunningCommand: @unchecked Sendable {
    private let process = Process()
    private let out = Pipe()
    private let err = Pipe()

    init(_ arguments: [String]) throws {
        process.executableURL = CommandRunner.binDirectory.appendingPathComponent("prefetch")
        process.arguments = arguments
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    func signal(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Waits on a dispatch thread for the exit, collecting all output.
    func wait() async -> CommandResult {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { [self] in
                let group = DispatchGroup()
                nonisolated(unsafe) var errData = Data()
                DispatchQueue.global().async(group: group) { errData = self.err.fileHandleForReading.readDataToEndOfFile() }
                let outData = out.fileHandleForReading.readDataToEndOfFile()
                group.wait()
                process.waitUntilExit()
                let status = process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
                continuation.resume(returning: CommandResult(
                    status: status, stdout: outData, stderr: String(decoding: errData, as: UTF8.self)))
            }
        }
    }
}

/// Every file below a folder with its bytes (directories marked as such),
/// to show a command left a cache byte-for-byte as it was.
func snapshot(_ root: String) -> [String: Data] {
    var result: [String: Data] = [:]
    for path in FileManager.default.subpaths(atPath: root) ?? [] {
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
