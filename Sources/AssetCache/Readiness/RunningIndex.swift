#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging

/// `readiness.json` while a run decides its messages
/// (docs/cache-format.md#during-a-run): a display app in any language learns
/// that a message is ready within a moment of its assets' commit, not at the
/// run's end.
///
/// Each rewrite is a whole file on flash (231 KB for 500 messages, 5.2 MB for
/// 10,000), so they are spent where they matter: a change to a session-start or
/// push-click message is written at once; other changes at most once per
/// ``interval`` (longer for an index that takes long to write, so that
/// rewriting it never costs more than a twentieth of the run); and a run that
/// changes no verdict writes nothing at all.
///
/// Records reach it only once their asset's batch is durable (the pipeline
/// returns after ``GroupCommit/commit(_:isUrgent:)``), so the index never names
/// a file a power cut could take back. A mid-run rewrite flushes the file
/// before its rename but not the directory: after a power cut a reader finds
/// this copy or an older one, each naming only durable files.
actor RunningIndex {
    static let interval: Duration = .seconds(1)

    private let store: CacheStore
    private let manifest: IndexedManifest?
    private let pool: BlockingPool
    private let logger: Logger
    /// Told of every message the run decides, changed or not (``Prefetcher/decisions()``).
    private let listener: @Sendable (ReadinessIndex.Message) -> Void
    private var progress: IndexProgress
    /// The messages the file now on disk holds (nil: no file, or unreadable),
    /// and the manifest it names.
    private var onDisk: [ReadinessIndex.Message]?
    private var onDiskManifest: String?
    private var lastWrite: ContinuousClock.Instant?
    /// How long after the last write the next non-urgent one may start.
    private var spacing = RunningIndex.interval
    private var writing: Task<Void, Never>?
    private var timer: Task<Void, Never>?
    /// After ``settle()``: no rewrite starts any more. One that did would hold
    /// the store, and with it the cache's lock, after the run returned.
    private var settled = false
    /// Rewrites made during the run and at its end, and their bytes (logged at
    /// `trace` for BENCHMARKS.md).
    private var writes = (during: 0, bytes: 0, atEnd: false)

    init(
        progress: IndexProgress, previous: ReadinessIndex?, manifest: IndexedManifest?, store: CacheStore, pool: BlockingPool,
        logger: Logger, listener: @escaping @Sendable (ReadinessIndex.Message) -> Void
    ) {
        self.progress = progress
        self.onDisk = previous?.messages
        self.onDiskManifest = previous?.manifest?.sha256
        self.manifest = manifest
        self.store = store
        self.pool = pool
        self.logger = logger
        self.listener = listener
    }

    /// Decides what needs no asset, and writes the index if that changed it.
    func start() {
        tell(progress.start(at: Date().timeIntervalSince1970))
        publishIfDue()
    }

    /// An asset's records, once its commit is durable. `stopping`: the run
    /// is being stopped, so a failure may be the stop's own and decides nothing.
    func take(_ records: [AssetRecord], at position: Int, stopping: Bool) {
        if stopping { progress.stop() }
        tell(progress.take(records, at: position, wallClock: Date().timeIntervalSince1970))
        publishIfDue()
    }

    private func tell(_ decided: [Int]) {
        for index in decided { listener(progress.shown[index]) }
    }

    private func publishIfDue() {
        guard !settled, writing == nil, progress.changed else { return }
        let now = ContinuousClock.now
        if progress.urgentChanged || lastWrite.map({ now >= $0 + spacing }) ?? true {
            timer?.cancel()
            timer = nil
            let messages = progress.snapshot()
            writing = Task { await self.write(messages) }
        } else if timer == nil, let lastWrite {
            timer = Task { [due = lastWrite + spacing] in
                try? await Task.sleep(until: due, clock: .continuous)
                if !Task.isCancelled { self.timerFired() }
            }
        }
    }

    private func timerFired() {
        timer = nil
        publishIfDue()
    }

    private func write(_ messages: [ReadinessIndex.Message]) async {
        let index = ReadinessIndex(
            computedAt: Date().timeIntervalSince1970, computedBy: "run", cacheDirectory: store.root, manifest: manifest,
            messages: messages)
        // The write's own time, not its wait for a pool thread behind commits.
        let (result, took) = await pool.run { [store] in
            let started = ContinuousClock.now
            let result = Result { () throws(StoreError) in try store.writeReadinessIndex(index, syncingDirectory: false) }
            return (result, ContinuousClock.now - started)
        }
        if case .failure(let error) = result {
            // The run's end writes it again; a display app meanwhile reads the older copy.
            logger.warning("readiness.json was not brought up to date during the run: \(error)")
        } else if case .success(let bytes) = result {
            onDisk = messages
            onDiskManifest = manifest?.sha256
            writes.during += 1
            writes.bytes += bytes
        }
        lastWrite = .now
        spacing = max(Self.interval, took * 20)
        writing = nil
        publishIfDue()
    }

    /// Ends the run's rewrites: what is being written is on disk when it returns.
    func settle() async {
        settled = true
        let pending = timer
        timer = nil
        pending?.cancel()
        await pending?.value
        await writing?.value
    }

    /// The index the run ends with: its decisions, and for what a stopped run
    /// did not decide the verdict the last index gave (new messages then
    /// `deferred` with reason `run_stopped`). The run's own eviction must keep
    /// what those name (``undecidedObjects``).
    func finalMessages(stopped: Bool) -> [ReadinessIndex.Message] {
        if stopped { progress.markStopped() }
        return progress.shown
    }

    /// The objects the undecided messages' verdicts name: eviction keeps them.
    func undecidedObjects() -> Set<String> {
        var objects: Set<String> = []
        for (index, message) in progress.shown.enumerated() where !progress.isDecided(index) {
            for asset in message.assets { if let object = asset.object { objects.insert(object) } }
        }
        return objects
    }

    /// Writes the run's last index, durably, unless the file already says the
    /// same of every message: a run that changes no verdict leaves it untouched.
    func finish(_ messages: [ReadinessIndex.Message], at now: Double) throws(StoreError) {
        defer {
            // At trace: `make bench` reads it; every run's debug output would otherwise carry it.
            logger.trace(
                "readiness.json: \(writes.during) rewrites during the run (\(writes.bytes) bytes), \(writes.atEnd ? 1 : 0) at its end")
        }
        if let onDisk, onDiskManifest == manifest?.sha256, onDisk.count == messages.count,
           zip(onDisk, messages).allSatisfy({ $0.sameVerdict(as: $1) }) {
            return
        }
        let bytes = try store.writeReadinessIndex(
            ReadinessIndex(computedAt: now, computedBy: "run", cacheDirectory: store.root, manifest: manifest, messages: messages))
        onDisk = messages
        onDiskManifest = manifest?.sha256
        writes.atEnd = true
        writes.bytes += bytes
    }
}
