#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// `<cache>/running.json` (docs/cache-format.md#during-a-run): a run is in
/// progress, since when and in which process. Written when a run starts and
/// removed when it ends, beside `readiness.json` rather than in it, so that a
/// run that changes no verdict need not rewrite the index to say it ran.
///
/// Readers cannot take the writers' lock to ask (it is the writer's alone), so
/// the file names its process: one that died without removing it (SIGKILL, a
/// power cut) is told apart by its boot and its process's start time.
public struct RunInProgress: Sendable, Equatable, Codable {
    public static let fileName = "running.json"

    public var pid: Int32
    /// Seconds since 1970.
    public var startedAt: Double
    /// `/proc/sys/kernel/random/boot_id` when the run started.
    public var bootID: String
    /// The process's start time in clock ticks since boot (`/proc/PID/stat`, field 22).
    public var processStart: UInt64?

    enum CodingKeys: String, CodingKey {
        case pid
        case startedAt = "started_at"
        case bootID = "boot_id"
        case processStart = "process_start"
    }

    /// This process, now.
    static func current() -> RunInProgress {
        let pid = getpid()
        return RunInProgress(
            pid: pid, startedAt: Date().timeIntervalSince1970, bootID: Self.bootID() ?? "", processStart: Self.processStart(of: pid))
    }

    /// Whether the process that wrote it still runs: the same boot, a live pid,
    /// and (when `/proc` shows it) the same process start, so that a pid used
    /// again after a crash is not taken for the run.
    public var isRunning: Bool {
        guard pid > 0, bootID == Self.bootID() ?? "" else { return false }
        guard kill(pid, 0) == 0 || errno == EPERM else { return false }
        guard let processStart, let now = Self.processStart(of: pid) else { return true }
        return processStart == now
    }

    private static func bootID() -> String? {
        guard let text = try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8) else { return nil }
        return String(text.filter { !$0.isWhitespace })
    }

    /// Field 22 of `/proc/PID/stat`, counted after the command's closing parenthesis
    /// (the command itself may hold spaces and parentheses).
    static func processStart(of pid: Int32) -> UInt64? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // fields[0] is field 3 (the state): field 22 is fields[19].
        return fields.count > 19 ? UInt64(fields[19]) : nil
    }
}

extension CacheStore {
    /// Says a run is in progress. Not flushed: after a power cut, a stale copy
    /// names a process of another boot, which ``RunInProgress/isRunning`` sees.
    package func markRunStarted() {
        guard let bytes = try? JSONEncoder().encode(RunInProgress.current()),
              let temp = try? FileSystem.writeTemporary(Array(bytes), in: tmp, mode: Self.privateFileMode, sync: false) else { return }
        try? tmp.rename(temp, to: directory, as: RunInProgress.fileName)
    }

    package func markRunEnded() {
        _ = directory.unlink(RunInProgress.fileName)
    }

    /// The run in progress, if one is: nil when there is no `running.json`, it
    /// cannot be read, or the process that wrote it has ended.
    public func runInProgress() -> RunInProgress? {
        guard let bytes = directory.contents(of: RunInProgress.fileName, limit: 4096),
              let run = try? JSONDecoder().decode(RunInProgress.self, from: Data(bytes)), run.isRunning else { return nil }
        return run
    }
}
