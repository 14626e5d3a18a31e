import Foundation

/// Runs the package's own executables as a user would, capturing output and status.
struct CommandResult: Sendable {
    var status: Int32
    var stdout: Data
    var stderr: String

    var stdoutText: String { String(decoding: stdout, as: UTF8.self) }

    func report() throws -> Report {
        do {
            return try JSONDecoder().decode(Report.self, from: stdout)
        } catch {
            throw ReportDecodingFailure(description: "\(error)\nstdout: \(stdoutText)\nstderr: \(stderr)")
        }
    }
}

struct ReportDecodingFailure: Error, CustomStringConvertible {
    var description: String
}

enum CommandRunner {
    /// Where `swift build` put the executables: beside the test bundle.
    static let binDirectory: URL = {
        if let executable = Bundle.main.executableURL?.deletingLastPathComponent(),
           FileManager.default.isExecutableFile(atPath: executable.appendingPathComponent("prefetch").path) {
            return executable
        }
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            return bundle.bundleURL.deletingLastPathComponent()
        }
        return Package.root.appendingPathComponent(".build/debug")
    }()

    static func prefetch(
        _ arguments: [String], stdin: Data? = nil, in directory: URL? = nil, environment: [String: String] = [:]
    ) async throws -> CommandResult {
        try await run(binDirectory.appendingPathComponent("prefetch"), arguments, stdin: stdin, in: directory, environment: environment)
    }

    /// Waits on a dispatch thread, not the cooperative pool, so parallel tests don't starve it.
    static func run(
        _ executable: URL, _ arguments: [String], stdin: Data? = nil, in directory: URL? = nil, environment extra: [String: String] = [:]
    ) async throws -> CommandResult {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        for key in ["PREFETCH_CACHE_DIR", "CACHE_DIRECTORY", "XDG_CACHE_HOME"] { environment[key] = nil }
        environment.merge(extra) { $1 }
        process.environment = environment
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                if let stdin { input.fileHandleForWriting.write(stdin) }
                try? input.fileHandleForWriting.close()
                let group = DispatchGroup()
                nonisolated(unsafe) var errData = Data()
                DispatchQueue.global().async(group: group) { errData = err.fileHandleForReading.readDataToEndOfFile() }
                let outData = out.fileHandleForReading.readDataToEndOfFile()
                group.wait()
                process.waitUntilExit()
                continuation.resume(returning: CommandResult(
                    status: process.terminationStatus, stdout: outData, stderr: String(decoding: errData, as: UTF8.self)))
            }
        }
    }
}

enum Package {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let assets = root.appendingPathComponent("fixtures/assets")
    static let manifests = root.appendingPathComponent("fixtures/manifests")
}
