import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs the package's own executables as a user would, capturing output and status.
struct CommandResult: Sendable {
    /// The exit status, or the signal's number when `signaled`.
    var status: Int32
    var stdout: Data
    var stderr: String
    /// Whether a signal ended the process: its number alone would read as an exit status (SIGINT as 2).
    var signaled = false

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
    /// Every test's `prefetch` reads no /etc/prefetch/prefetch.conf or
    /// ~/.config/prefetch of the machine it runs on: this file, git's
    /// convention for "no configuration"; ConfigFileTests set their own.
    static let noConfiguration = "/dev/null"

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
        for key in ["PREFETCH_CACHE_DIR", "CACHE_DIRECTORY", "XDG_CACHE_HOME", "PREFETCH_MANIFEST"] { environment[key] = nil }
        environment["PREFETCH_CONFIG"] = CommandRunner.noConfiguration
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
                    status: process.terminationStatus, stdout: outData, stderr: String(decoding: errData, as: UTF8.self),
                    signaled: process.terminationReason == .uncaughtSignal))
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
    /// The child's peak resident set, in bytes: its `VmHWM` read when it is about
    /// to exit, else `ru_maxrss` from wait4(2).
    var peakResidentBytes: Int64
    /// `ru_maxrss` from wait4(2), in bytes. On Linux it also counts the memory of
    /// whoever spawned the child: exec records the old address space's peak,
    /// and a posix_spawn (vfork) child's old address space is its parent's.
    var rusageMaxRSSBytes: Int64
}

extension CommandRunner {
    /// `prefetch` as ``prefetch(_:stdin:in:environment:)`` runs it, spawned and reaped
    /// here rather than by `Process` so that what it used can be read.
    static func measuredPrefetch(
        _ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:]
    ) async throws -> MeasuredCommandResult {
        try await measured(binDirectory.appendingPathComponent("prefetch"), arguments, in: directory, environment: environment)
    }

    /// posix_spawn with stdin from /dev/null, stdout and stderr piped. The child is
    /// then traced (PTRACE_SEIZE, no stop, no signal) only to be stopped once, at
    /// its exit, while its memory still exists: `VmHWM` in /proc/PID/status is then
    /// the peak of its own address space alone, which `ru_maxrss` is not (see
    /// ``MeasuredCommandResult``). wait4 reaps it and gives the rusage. Blocks a
    /// dispatch thread, not the cooperative pool; the tracer is that one thread.
    static func measured(
        _ executable: URL, _ arguments: [String], in directory: URL? = nil, environment extra: [String: String] = [:]
    ) async throws -> MeasuredCommandResult {
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        for key in ["PREFETCH_CACHE_DIR", "CACHE_DIRECTORY", "XDG_CACHE_HOME", "PREFETCH_MANIFEST"] { environment[key] = nil }
        environment["PREFETCH_CONFIG"] = CommandRunner.noConfiguration
        environment.merge(extra) { $1 }

        let path = executable.path, workingDirectory = directory?.path
        let argumentList = [executable.path] + arguments
        let environmentList = environment.map { "\($0.key)=\($0.value)" }
        return try await withCheckedThrowingContinuation { continuation in
            // Spawned on the thread that traces and reaps it: ptrace has one tracer thread.
            DispatchQueue.global().async {
                var outPipe: [Int32] = [-1, -1], errPipe: [Int32] = [-1, -1]
                guard pipe2(&outPipe, O_CLOEXEC) == 0, pipe2(&errPipe, O_CLOEXEC) == 0 else {
                    return continuation.resume(throwing: SpawnFailure(step: "pipe2", code: errno))
                }
                let (outFD, errFD) = (outPipe[0], errPipe[0])
                var actions = posix_spawn_file_actions_t()
                posix_spawn_file_actions_init(&actions)
                defer { posix_spawn_file_actions_destroy(&actions) }
                posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
                posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
                posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
                // Nothing else of this process: a test's socket held open by the
                // child would keep its connection (or a stopped server's port)
                // alive for as long as the child runs.
                _ = closeFrom?(&actions, 3)
                var spawned: Int32 = 0
                if let workingDirectory {
                    spawned = posix_spawn_file_actions_addchdir_np(&actions, workingDirectory)
                }
                let argv = argumentList.map { strdup($0) } + [nil]
                let envp = environmentList.map { strdup($0) } + [nil]
                defer { (argv + envp).forEach { free($0) } }
                var pid: pid_t = 0
                if spawned == 0 { spawned = posix_spawn(&pid, path, &actions, nil, argv, envp) }
                close(outPipe[1])
                close(errPipe[1])
                guard spawned == 0 else {
                    close(outFD)
                    close(errFD)
                    return continuation.resume(throwing: SpawnFailure(step: "posix_spawn", code: spawned))
                }
                let traced = ptrace(PTRACE_SEIZE, pid, nil, UnsafeMutableRawPointer(bitPattern: PTRACE_O_TRACEEXIT)) == 0

                let group = DispatchGroup()
                nonisolated(unsafe) var outData = Data(), errData = Data()
                DispatchQueue.global().async(group: group) { outData = FileHandle(fileDescriptor: outFD, closeOnDealloc: true).readDataToEndOfFile() }
                DispatchQueue.global().async(group: group) { errData = FileHandle(fileDescriptor: errFD, closeOnDealloc: true).readDataToEndOfFile() }

                var status: Int32 = 0
                var usage = rusage()
                var highWater: Int64?
                while true {
                    guard wait4(pid, &status, __WALL, &usage) >= 0 else {
                        if errno == EINTR { continue }
                        break
                    }
                    guard status & 0xFF == 0x7F else { break }  // exited or killed: reaped
                    // Stopped (only a tracee stops): at exit, read its memory; else pass the signal on.
                    let signal = (status >> 8) & 0xFF
                    if status >> 16 == PTRACE_EVENT_EXIT {
                        highWater = residentHighWater(of: pid)
                        _ = ptrace(PTRACE_CONT, pid, nil, nil)
                    } else {
                        _ = ptrace(PTRACE_CONT, pid, nil, status >> 16 == 0 ? UnsafeMutableRawPointer(bitPattern: Int(signal)) : nil)
                    }
                }
                group.wait()
                // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import as macros.
                let exitStatus = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
                let maxRSS = Int64(usage.ru_maxrss) * 1024
                continuation.resume(returning: MeasuredCommandResult(
                    result: CommandResult(status: exitStatus, stdout: outData, stderr: String(decoding: errData, as: UTF8.self)),
                    peakResidentBytes: traced ? (highWater ?? maxRSS) : maxRSS,
                    rusageMaxRSSBytes: maxRSS))
            }
        }
    }

    /// `VmHWM` of a live process, in bytes.
    private static func residentHighWater(of pid: pid_t) -> Int64? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = Int64(line.dropFirst("VmHWM:".count).trimmingCharacters(in: .whitespaces).dropLast(3)
                .trimmingCharacters(in: .whitespaces))
        else { return nil }
        return kilobytes * 1024
    }
}

private let PTRACE_SEIZE: Int32 = 0x4206
private let PTRACE_CONT: Int32 = 7
private let PTRACE_O_TRACEEXIT = 0x40
private let PTRACE_EVENT_EXIT: Int32 = 6
private let __WALL: Int32 = 0x4000_0000

/// glibc's ptrace is variadic, which Swift cannot call; every request used here
/// passes (request, pid, addr, data) in integer registers either way.
@_silgen_name("ptrace")
private func ptrace(_ request: Int32, _ pid: pid_t, _ address: UnsafeMutableRawPointer?, _ data: UnsafeMutableRawPointer?) -> Int

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

/// glibc 2.34's posix_spawn_file_actions_addclosefrom_np, which Swift's Glibc
/// module does not import; nil on an older glibc.
private let closeFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
    guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
    return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
}()
