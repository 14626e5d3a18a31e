/// Commits a run's validated assets in batches, as a database's group commit or
/// git's batch fsync does: an asset waits in `tmp/` until its batch closes, then
/// the whole batch is made durable with a handful of flushes (``CommitBatch``)
/// instead of a few per asset.
///
/// A batch closes once every asset that may still join it is waiting in it (the
/// run has no other asset under way, or its window of assets in progress is full
/// of waiting ones: nothing more starts before the batch commits), once it holds
/// `batchLimit` assets, or once its oldest asset has waited `window`: longer
/// windows mean fewer flushes, shorter ones assets committed sooner. One batch
/// commits at a time; what arrives meanwhile forms the next.
///
/// Session-start and push-click assets never wait for a batch: ``commitNow(_:)``
/// commits one on its own at once, flushing only its own files, so it does not
/// wait behind the other assets' data either.
actor GroupCommit {
    private let batched: CommitBatch
    private let urgent: CommitBatch
    private let pool: BlockingPool
    private let window: Duration
    private let batchLimit: Int
    /// How many assets the run has in progress at most (its pipeline window).
    private let inProgress: Int
    private var queue: [(entry: StagedCommit, done: CheckedContinuation<Result<Void, StoreError>, Never>)] = []
    private var oldest: ContinuousClock.Instant?
    /// Assets of the run whose pipeline has not ended: each may still join.
    private var outstanding: Int
    private var committing = false
    private var timer: Task<Void, Never>?
    private var batchTask: Task<Void, Never>?
    /// Refs published and not yet flushed.
    private var refsPending = false

    init(store: CacheStore, pool: BlockingPool, window: Duration, assets: Int, inProgress: Int? = nil,
         batchLimit: Int = .max, method: FlushMethod? = nil, observer: DurabilityObserver? = nil) throws(StoreError) {
        do throws(FileSystem.Failure) {
            batched = CommitBatch(store: store, flush: try BatchFlush(store: store, method: method, observer: observer))
            urgent = CommitBatch(store: store, flush: try BatchFlush(store: store, method: .perFile, observer: observer))
        } catch {
            throw .io(error.description)
        }
        self.pool = pool
        self.window = window
        self.batchLimit = max(1, batchLimit)
        self.inProgress = max(1, inProgress ?? assets)
        outstanding = assets
    }

    /// Returns once the entry's object and tree are durable and its ref published.
    func commit(_ entry: PendingCommit) async -> Result<Void, StoreError> {
        let staged = await pool.run { [batched] in batched.stage(entry) }
        return await withCheckedContinuation { continuation in
            queue.append((staged, continuation))
            if oldest == nil { oldest = .now }
            closeIfDue()
        }
    }

    /// An urgent entry, committed alone and at once.
    func commitNow(_ entry: PendingCommit) async -> Result<Void, StoreError> {
        let result = await pool.run { [urgent] in urgent.run([urgent.stage(entry)])[0] }
        if entry.ref != nil, case .success = result { refsPending = true }
        return result
    }

    /// One asset of the run is done: it will not join a batch any more.
    func leave() {
        outstanding -= 1
        closeIfDue()
    }

    /// Makes every ref published in the run durable: the run's report may then
    /// call those assets ready. Returns once no task of its own is left either:
    /// one winding down after the run returned would still hold the store, and
    /// with it the cache's lock, when the caller opens the cache again.
    func close() async throws(StoreError) {
        timer?.cancel()
        await timer?.value
        await batchTask?.value
        guard refsPending else { return }
        refsPending = false
        let result = await pool.run { [batched] in
            Result { () throws(FileSystem.Failure) in try batched.flushRefs() }
        }
        if case .failure(let error) = result { throw .io(error.description) }
    }

    private func closeIfDue() {
        guard !committing, let oldest, !queue.isEmpty else { return }
        let deadline = oldest + window
        let mayJoin = min(outstanding, inProgress)
        if queue.count >= min(mayJoin, batchLimit) || ContinuousClock.now >= deadline {
            timer?.cancel()
            timer = nil
            // What is left over the limit has waited as long: it is due next.
            let batch = Array(queue.prefix(batchLimit))
            queue.removeFirst(batch.count)
            if queue.isEmpty { self.oldest = nil }
            committing = true
            batchTask = Task { [weak self] in await self?.run(batch) }
        } else if timer == nil {
            timer = Task { [weak self] in
                try? await Task.sleep(until: deadline, clock: .continuous)
                if !Task.isCancelled { await self?.timerFired() }
            }
        }
    }

    private func timerFired() {
        timer = nil
        closeIfDue()
    }

    private func run(_ batch: [(entry: StagedCommit, done: CheckedContinuation<Result<Void, StoreError>, Never>)]) async {
        let entries = batch.map(\.entry)
        let results = await pool.run { [batched] in batched.run(entries) }
        for (index, result) in results.enumerated() {
            if entries[index].entry.ref != nil, case .success = result { refsPending = true }
            batch[index].done.resume(returning: result)
        }
        committing = false
        closeIfDue()
    }
}
