import Foundation
#if canImport(Glibc)
import Glibc
#endif

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

/// A run of a child process together with what the kernel says it used.
struct MeasuredCommandResult: Sendable {
    var result: CommandResult
    /// `ru_maxrss` of the child from wait4(2): its peak resident set, in bytes.
    var peakResidentBytes: Int64
}

extension CommandRunner {
    /// `prefetch` as ``prefetch(_:stdin:in:environment:)`` runs it, spawned and reaped
    /// here rather than by `Process` so that its own rusage can be read.
    static func measuredPrefetch(
        _ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:]
    ) async throws -> MeasuredCommandResult {
        try await measured(binDirectory.appendingPathComponent("prefetch"), arguments, in: directory, environment: environment)
    }

    /// posix_spawn with stdin from /dev/null, stdout and stderr piped; wait4 for the
    /// status and `ru_maxrss` of exactly this child (RUSAGE_CHILDREN would mix in
    /// every other test's children). Blocks a dispatch thread, not the cooperative pool.
    static func measured(
        _ executable: URL, _ arguments: [String], in directory: URL? = nil, environment extra: [String: String] = [:]
    ) async throws -> MeasuredCommandResult {
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        for key in ["PREFETCH_CACHE_DIR", "CACHE_DIRECTORY", "XDG_CACHE_HOME"] { environment[key] = nil }
        environment.merge(extra) { $1 }

        var outPipe: [Int32] = [-1, -1], errPipe: [Int32] = [-1, -1]
        guard pipe2(&outPipe, O_CLOEXEC) == 0, pipe2(&errPipe, O_CLOEXEC) == 0 else { throw SpawnFailure(step: "pipe2", code: errno) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        if let directory, case let code = posix_spawn_file_actions_addchdir_np(&actions, directory.path), code != 0 {
            throw SpawnFailure(step: "posix_spawn_file_actions_addchdir_np", code: code)
        }

        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable.path, &actions, nil, argv, envp)
        close(outPipe[1])
        close(errPipe[1])
        guard spawned == 0 else {
            close(outPipe[0])
            close(errPipe[0])
            throw SpawnFailure(step: "posix_spawn", code: spawned)
        }
        let (outFD, errFD, child) = (outPipe[0], errPipe[0], pid)
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let group = DispatchGroup()
                nonisolated(unsafe) var errData = Data()
                DispatchQueue.global().async(group: group) { errData = FileHandle(fileDescriptor: errFD, closeOnDealloc: true).readDataToEndOfFile() }
                let outData = FileHandle(fileDescriptor: outFD, closeOnDealloc: true).readDataToEndOfFile()
                group.wait()
                var status: Int32 = 0
                var usage = rusage()
                while wait4(child, &status, 0, &usage) < 0, errno == EINTR {}
                // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import as macros.
                let exitStatus = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
                continuation.resume(returning: MeasuredCommandResult(
                    result: CommandResult(status: exitStatus, stdout: outData, stderr: String(decoding: errData, as: UTF8.self)),
                    peakResidentBytes: Int64(usage.ru_maxrss) * 1024))
            }
        }
    }
}

// glibc declares these only under _GNU_SOURCE, which Swift's Glibc module does not set.
@_silgen_name("pipe2")
private func pipe2(_ fds: UnsafeMutablePointer<Int32>, _ flags: Int32) -> Int32
@_silgen_name("posix_spawn_file_actions_addchdir_np")
private func posix_spawn_file_actions_addchdir_np(
    _ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ path: UnsafePointer<CChar>
) -> Int32

struct SpawnFailure: Error, CustomStringConvertible {
    var step: String
    var code: Int32
    var description: String { "\(step) failed: \(String(cString: strerror(code)))" }
}
