import Synchronization

/// Commits a run's validated assets in batches, as a database's group commit or
/// git's batch fsync does: an asset waits in `tmp/` until its batch closes, then
/// the whole batch is made durable with a handful of flushes (``CommitBatch``)
/// instead of a few per asset.
///
/// A batch closes once every asset of the run still under way is waiting in it
/// (nothing more can join before it commits), or once its oldest asset has waited
/// `window`: longer windows mean fewer flushes, shorter ones assets committed
/// sooner. One batch commits at a time; what arrives meanwhile forms the next.
///
/// Session-start and push-click assets never wait for a batch: ``commitNow(_:)``
/// commits one on its own at once, flushing only its own files, so it does not
/// wait behind the other assets' data either.
actor GroupCommit {
    private let batched: CommitBatch
    private let urgent: CommitBatch
    private let pool: BlockingPool
    private let window: Duration
    private var queue: [(entry: PendingCommit, done: CheckedContinuation<Result<Void, StoreError>, Never>)] = []
    private var oldest: ContinuousClock.Instant?
    /// Assets of the run whose pipeline has not ended: each may still join.
    private var outstanding: Int
    private var committing = false
    private var timer: Task<Void, Never>?
    /// Refs published and not yet flushed (urgent commits update it from the pool).
    private let refsPending = Atomic<Bool>(false)

    init(store: CacheStore, pool: BlockingPool, window: Duration, assets: Int,
         method: FlushMethod? = nil, observer: DurabilityObserver? = nil) throws(StoreError) {
        do throws(FileSystem.Failure) {
            batched = CommitBatch(store: store, flush: try BatchFlush(root: store.root, method: method, observer: observer))
            urgent = CommitBatch(store: store, flush: try BatchFlush(root: store.root, method: .perFile, observer: observer))
        } catch {
            throw .io(error.description)
        }
        self.pool = pool
        self.window = window
        outstanding = assets
    }

    /// Returns once the entry's object and tree are durable and its ref published.
    func commit(_ entry: PendingCommit) async -> Result<Void, StoreError> {
        await withCheckedContinuation { continuation in
            queue.append((entry, continuation))
            if oldest == nil { oldest = .now }
            closeIfDue()
        }
    }

    /// An urgent entry, committed alone and at once.
    func commitNow(_ entry: PendingCommit) async -> Result<Void, StoreError> {
        let result = await pool.run { [urgent] in urgent.run([entry])[0] }
        if entry.ref != nil, case .success = result { refsPending.store(true, ordering: .relaxed) }
        return result
    }

    /// One asset of the run is done: it will not join a batch any more.
    func leave() {
        outstanding -= 1
        closeIfDue()
    }

    /// Makes every ref published in the run durable: the run's report may then
    /// call those assets ready.
    func close() async throws(StoreError) {
        guard refsPending.exchange(false, ordering: .relaxed) else { return }
        let result = await pool.run { [batched] in
            Result { () throws(FileSystem.Failure) in try batched.flushRefs() }
        }
        if case .failure(let error) = result { throw .io(error.description) }
    }

    private func closeIfDue() {
        guard !committing, let oldest, !queue.isEmpty else { return }
        let deadline = oldest + window
        if queue.count >= outstanding || ContinuousClock.now >= deadline {
            timer?.cancel()
            timer = nil
            let batch = queue
            queue = []
            self.oldest = nil
            committing = true
            Task { await run(batch) }
        } else if timer == nil {
            timer = Task {
                try? await Task.sleep(until: deadline, clock: .continuous)
                if !Task.isCancelled { self.timerFired() }
            }
        }
    }

    private func timerFired() {
        timer = nil
        closeIfDue()
    }

    private func run(_ batch: [(entry: PendingCommit, done: CheckedContinuation<Result<Void, StoreError>, Never>)]) async {
        let entries = batch.map(\.entry)
        let results = await pool.run { [batched] in batched.run(entries) }
        for (index, result) in results.enumerated() {
            if entries[index].ref != nil, case .success = result { refsPending.store(true, ordering: .relaxed) }
            batch[index].done.resume(returning: result)
        }
        committing = false
        closeIfDue()
    }
}
