/// Commits a run's validated assets in batches, as a database's group commit or
/// git's batch fsync does: an asset waits in `tmp/` until its batch closes, then
/// the whole batch is made durable with a handful of flushes (``CommitBatch``)
/// instead of a few per asset.
///
/// A batch closes once every asset that may still join it is waiting in it (the
/// run has no other asset under way, or its window of assets in progress is full
/// of waiting ones: nothing more starts before the batch commits), once it holds
/// `batchLimit` assets, or once its oldest asset has waited its lane's window:
/// longer windows mean fewer flushes, shorter ones assets committed sooner.
///
/// Session-start and push-click assets race the user, so they have a lane of
/// their own: their batches close by the same rules, and commit beside the
/// other lane's, never behind it. A lone urgent asset (nothing else urgent
/// under way) commits at once. The lane's window starts at ``urgentWindow`` and
/// doubles with each of its batches up to the other lane's: the first urgent
/// assets are ready soon, and when a kiosk starts every message at session
/// start, its hundreds of urgent assets share a few batches as the others do.
/// So a run's flushes grow with its batches, never with its assets or their
/// files (per-file fsync of urgent assets made 4,588 flushes when all 500
/// messages of a corpus were urgent; BENCHMARKS.md, rows K).
///
/// In each lane one batch commits at a time; what arrives meanwhile forms the next.
actor GroupCommit {
    /// Long enough for urgent assets fetched side by side to share a batch, short
    /// against the time a person waits for a session-start message.
    static let urgentWindow: Duration = .milliseconds(100)

    private typealias Waiting = (entry: StagedCommit, done: CheckedContinuation<Result<Void, StoreError>, Never>)

    /// The batches of one kind of asset, urgent or not.
    private struct Lane {
        var window: Duration
        /// What `window` may grow to; equal to it in the other lane.
        let longestWindow: Duration
        var queue: [Waiting] = []
        var oldest: ContinuousClock.Instant?
        /// Assets of this lane whose pipeline has not ended: each may still join.
        var outstanding: Int
        var committing = false
        var timer: Task<Void, Never>?
        var batchTask: Task<Void, Never>?
    }

    private let batches: CommitBatch
    private let pool: BlockingPool
    private let batchLimit: Int
    /// How many assets the run has in progress at most (its pipeline window).
    private let inProgress: Int
    /// Index 0 the other assets, 1 the urgent ones.
    private var lanes: [Lane]
    /// Refs published and not yet flushed.
    private var refsPending = false

    init(store: CacheStore, pool: BlockingPool, window: Duration, assets: Int, urgent: Int = 0, inProgress: Int? = nil,
         batchLimit: Int = .max, method: FlushMethod? = nil, observer: DurabilityObserver? = nil) throws(StoreError) {
        do throws(FileSystem.Failure) {
            batches = CommitBatch(store: store, flush: try BatchFlush(store: store, method: method, observer: observer))
        } catch {
            throw .io(error.description)
        }
        self.pool = pool
        self.batchLimit = max(1, batchLimit)
        self.inProgress = max(1, inProgress ?? assets)
        lanes = [
            Lane(window: window, longestWindow: window, outstanding: assets - urgent),
            Lane(window: min(window, Self.urgentWindow), longestWindow: window, outstanding: urgent),
        ]
    }

    /// Returns once the entry's object and tree are durable and its ref published.
    func commit(_ entry: PendingCommit, isUrgent: Bool = false) async -> Result<Void, StoreError> {
        let staged = await pool.run { [batches] in batches.stage(entry) }
        let lane = isUrgent ? 1 : 0
        return await withCheckedContinuation { continuation in
            lanes[lane].queue.append((staged, continuation))
            if lanes[lane].oldest == nil { lanes[lane].oldest = .now }
            closeIfDue(lane)
        }
    }

    /// One asset of the run is done: it will not join a batch any more.
    func leave(isUrgent: Bool = false) {
        let lane = isUrgent ? 1 : 0
        lanes[lane].outstanding -= 1
        closeIfDue(lane)
    }

    /// Makes every ref published in the run durable: the run's report may then
    /// call those assets ready. Returns once no task of its own is left either:
    /// one winding down after the run returned would still hold the store, and
    /// with it the cache's lock, when the caller opens the cache again.
    func close() async throws(StoreError) {
        for lane in lanes.indices {
            lanes[lane].timer?.cancel()
            await lanes[lane].timer?.value
            await lanes[lane].batchTask?.value
        }
        guard refsPending else { return }
        refsPending = false
        let result = await pool.run { [batches] in
            Result { () throws(FileSystem.Failure) in try batches.flushRefs() }
        }
        if case .failure(let error) = result { throw .io(error.description) }
    }

    private func closeIfDue(_ lane: Int) {
        guard !lanes[lane].committing, let oldest = lanes[lane].oldest, !lanes[lane].queue.isEmpty else { return }
        let deadline = oldest + lanes[lane].window
        let mayJoin = min(lanes[lane].outstanding, inProgress)
        if lanes[lane].queue.count >= min(mayJoin, batchLimit) || ContinuousClock.now >= deadline {
            lanes[lane].timer?.cancel()
            lanes[lane].timer = nil
            // What is left over the limit has waited as long: it is due next.
            let batch = Array(lanes[lane].queue.prefix(batchLimit))
            lanes[lane].queue.removeFirst(batch.count)
            if lanes[lane].queue.isEmpty { lanes[lane].oldest = nil }
            lanes[lane].committing = true
            lanes[lane].window = min(lanes[lane].window * 2, lanes[lane].longestWindow)
            lanes[lane].batchTask = Task { [weak self] in await self?.run(batch, lane: lane) }
        } else if lanes[lane].timer == nil {
            lanes[lane].timer = Task { [weak self] in
                try? await Task.sleep(until: deadline, clock: .continuous)
                if !Task.isCancelled { await self?.timerFired(lane) }
            }
        }
    }

    private func timerFired(_ lane: Int) {
        lanes[lane].timer = nil
        closeIfDue(lane)
    }

    private func run(_ batch: [Waiting], lane: Int) async {
        let entries = batch.map(\.entry)
        let results = await pool.run { [batches] in batches.run(entries) }
        for (index, result) in results.enumerated() {
            if entries[index].entry.ref != nil, case .success = result { refsPending = true }
            batch[index].done.resume(returning: result)
        }
        lanes[lane].committing = false
        closeIfDue(lane)
    }
}
