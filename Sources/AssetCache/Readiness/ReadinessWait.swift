#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import CFileSync
import Logging

/// Waits until messages are ready in a cache another process writes, as
/// `prefetch ready ID --wait SECONDS` does (docs/cache-format.md#waiting-for-a-message):
/// by inotify on the cache directory, which a run's rewrites of
/// `readiness.json` and its `running.json` wake, and by a pidfd on the run's
/// process, which wakes it should the run die without a word. No polling.
///
/// Works before the first run (no index, or no cache directory yet: its
/// nearest existing parent is watched until it appears) and across a run that
/// starts while it waits.
public struct ReadinessWait {
    public enum Outcome: Sendable {
        /// Every message named is ready in this index.
        case ready(ReadinessIndex)
        /// No run is in progress or about to start, and one of them is not ready
        /// (or, in `missing`, not in the index at all).
        case decided(ReadinessIndex, missing: [String])
        /// Time is up: the last index seen (if any), and the run then in progress.
        case timedOut(ReadinessIndex?, run: RunInProgress?)
    }

    public enum Failure: Error, Sendable, CustomStringConvertible {
        /// The cache cannot be read by the caller (refused, no permission).
        case cache(StoreError)
        /// The index cannot be read and no run is coming to replace it.
        case index(String)
        /// inotify cannot be had.
        case watch(String)

        public var description: String {
            switch self {
            case .cache(let error): error.description
            case .index(let text), .watch(let text): text
            }
        }
    }

    public let cacheDirectory: String
    public let ids: [String]
    /// The session-start request directory (``SessionStartRequests``), watched
    /// too: a run asked for there and not yet over makes no verdict final.
    public var requestDirectory: String?
    /// Told at `debug` when the first look gave no answer and the wait begins.
    public var logger: Logger

    public init(cacheDirectory: String, ids: [String], requestDirectory: String? = nil, logger: Logger = CacheStore.silentLogger) {
        self.cacheDirectory = cacheDirectory
        self.ids = ids
        self.requestDirectory = requestDirectory
        self.logger = logger
    }

    /// Blocks the calling thread until an outcome, `timeout` seconds at most.
    public func wait(timeout: Double) throws(Failure) -> Outcome {
        let deadline = ContinuousClock.now + CheckedNumber.duration(seconds: timeout)
        let watch = try Watch(cacheDirectory: cacheDirectory, also: requestDirectory.map { [$0] } ?? [])
        defer { watch.close() }
        var first = true
        while true {
            // Watched before looking, so that no change between the look and the wait is missed.
            watch.refresh()
            let (outcome, run) = try look()
            if let outcome { return outcome }
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return .timedOut(try? index(), run: run) }
            if first {
                logger.debug("not ready yet: waiting up to \(Self.format(timeout)) s for \(ids.joined(separator: ", "))\(run == nil ? "" : " (a run is in progress)")")
                first = false
            }
            watch.wait(upTo: left, process: run?.pid)
        }
    }

    /// `60`, `0.5`: as the seconds were given.
    private static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() && abs(seconds) < 1e15 ? String(Int64(seconds)) : String(seconds)
    }

    /// The outcome the cache gives now, if it gives one, and the run in progress.
    private func look() throws(Failure) -> (Outcome?, RunInProgress?) {
        let store: CacheStore?
        do {
            store = try CacheStore.openForReading(at: cacheDirectory)
        } catch {
            // Forbidden is said at once. Anything else may be a first run making
            // the cache (FORMAT before objects/): waited for, and said at the end.
            if case .denied = error { throw .cache(error) }
            store = nil
        }
        let run = store?.runInProgress()
        let runComing = run != nil || runRequested(since: store?.readState().lastRun?.finishedAt)
        guard let index = try index(from: store, runComing: runComing) else { return (nil, run) }
        var status: [String: MessageStatus] = [:]
        for message in index.messages { status[message.id] = message.status }
        if ids.allSatisfy({ status[$0] == .ready }) { return (.ready(index), run) }
        guard !runComing else { return (nil, run) }
        return (.decided(index, missing: ids.filter { status[$0] == nil }), nil)
    }

    /// Whether a session start asked for a run that has not ended yet: a
    /// request is pending, or the request directory changed (a request recorded
    /// or taken) since the last run finished. The second covers the moment
    /// between the service taking the request and its run saying it runs; a run
    /// that then fails before it starts (say, the cache locked) leaves the wait
    /// to its time limit rather than to the old verdicts.
    private func runRequested(since lastRun: Double?) -> Bool {
        guard let requestDirectory else { return false }
        if SessionStartRequests.pending(in: requestDirectory) { return true }
        var info = stat()
        guard lstat(requestDirectory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return false }
        return LibC.modificationTime(info) > (lastRun ?? 0)
    }

    /// The index, if there is one; an unreadable one is an error only when no run will replace it.
    private func index(from store: CacheStore?, runComing: Bool) throws(Failure) -> ReadinessIndex? {
        do {
            return try store?.readReadinessIndex(only: Set(ids), triggers: true)
        } catch {
            if runComing { return nil }
            throw .index("the readiness index \(cacheDirectory)/\(ReadinessIndex.fileName) cannot be read: \(error); the next run replaces it")
        }
    }

    private func index() throws -> ReadinessIndex? {
        try CacheStore.openForReading(at: cacheDirectory)?.readReadinessIndex(only: Set(ids), triggers: true)
    }
}

/// An inotify descriptor on the cache directory (or, until it exists, its
/// nearest existing parent) and on the session-start request directories.
private final class Watch {
    private let descriptor: Int32
    private let cacheDirectory: String
    private let others: [String]
    /// What is watched now for the cache: the directory itself, or a parent.
    private var watched: (path: String, wd: Int32)?
    private var watchedOthers: Set<String> = []

    private static let mask = UInt32(IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ATTRIB)

    init(cacheDirectory: String, also others: [String]) throws(ReadinessWait.Failure) {
        descriptor = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard descriptor >= 0 else {
            throw .watch("cannot watch \(cacheDirectory): inotify_init1: \(String(cString: strerror(errno)))")
        }
        self.cacheDirectory = cacheDirectory
        self.others = others
    }

    func close() {
        Glibc.close(descriptor)
    }

    /// Watches the cache directory once it exists, else the nearest parent that does.
    func refresh() {
        for other in others where !watchedOthers.contains(other) {
            if inotify_add_watch(descriptor, other, Self.mask) >= 0 { watchedOthers.insert(other) }
        }
        var path = cacheDirectory
        while true {
            if watched?.path == path { return }
            let wd = inotify_add_watch(descriptor, path, Self.mask | UInt32(IN_ONLYDIR))
            if wd >= 0 {
                if let old = watched, old.wd != wd { inotify_rm_watch(descriptor, old.wd) }
                watched = (path, wd)
                return
            }
            guard errno == ENOENT, let slash = path.lastIndex(of: "/") else { return }
            let parent = slash == path.startIndex ? "/" : String(path[..<slash])
            guard parent != path else { return }
            path = parent
        }
    }

    /// Until something changes in a watched directory, `process` (a run's pid)
    /// ends, or `limit` passes; then the events are drained.
    func wait(upTo limit: Duration, process: Int32?) {
        let pidfd = process.map { assetcache_pidfd_open($0) } ?? -1
        defer { if pidfd >= 0 { Glibc.close(pidfd) } }
        var descriptors = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
        if pidfd >= 0 { descriptors.append(pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)) }
        let components = limit.components
        let milliseconds = min(Int64(Int32.max), components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 + 1)
        _ = poll(&descriptors, nfds_t(descriptors.count), Int32(milliseconds))
        var buffer = [UInt8](repeating: 0, count: 4096)
        while buffer.withUnsafeMutableBytes({ read(descriptor, $0.baseAddress, $0.count) }) > 0 {}
        // Looked for again: the cache may have appeared under a watched parent, or
        // been replaced (its watch then gone). Adding a watch that exists is cheap.
        watched = nil
    }
}
