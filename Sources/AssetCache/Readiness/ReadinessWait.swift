#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import CFileSync

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
    /// Whether a run is about to start though none is in progress (a session
    /// start requested and not yet served): the verdicts seen are not final.
    public var runRequested: @Sendable () -> Bool
    /// Directories whose changes may answer `runRequested` differently.
    public var requestDirectories: [String]

    public init(
        cacheDirectory: String, ids: [String], runRequested: @escaping @Sendable () -> Bool = { false },
        requestDirectories: [String] = []
    ) {
        self.cacheDirectory = cacheDirectory
        self.ids = ids
        self.runRequested = runRequested
        self.requestDirectories = requestDirectories
    }

    /// Blocks the calling thread until an outcome, `timeout` seconds at most.
    public func wait(timeout: Double) throws(Failure) -> Outcome {
        let deadline = ContinuousClock.now + CheckedNumber.duration(seconds: timeout)
        let watch = try Watch(cacheDirectory: cacheDirectory, also: requestDirectories)
        defer { watch.close() }
        while true {
            // Watched before looking, so that no change between the look and the wait is missed.
            watch.refresh()
            let (outcome, run) = try look()
            if let outcome { return outcome }
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return .timedOut(try? index(), run: run) }
            watch.wait(upTo: left, process: run?.pid)
        }
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
        guard let index = try index(from: store, runInProgress: run != nil) else { return (nil, run) }
        var status: [String: MessageStatus] = [:]
        for message in index.messages { status[message.id] = message.status }
        if ids.allSatisfy({ status[$0] == .ready }) { return (.ready(index), run) }
        guard run == nil, !runRequested() else { return (nil, run) }
        return (.decided(index, missing: ids.filter { status[$0] == nil }), nil)
    }

    /// The index, if there is one; an unreadable one is an error only when no run will replace it.
    private func index(from store: CacheStore?, runInProgress: Bool) throws(Failure) -> ReadinessIndex? {
        do {
            return try store?.readReadinessIndex(only: Set(ids), triggers: true)
        } catch {
            if runInProgress || runRequested() { return nil }
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
