import Logging
import Synchronization

/// Before a run defers an asset for want of room above its
/// ``FreeSpaceFloor``, it evicts what its manifest does not need: least
/// recently used refs first, never a ref the manifest needs or a stored
/// manifest's (``CacheRoots``), an object a display app leases, one the
/// readiness index still names for a message the run has not decided, nor
/// one an asset of the run is committing (``ObjectHolds``). It runs beside
/// the run's commits: it removes only refs the run does not write, and the
/// shards it empties stay for them.
final class RoomMaker: Sendable {
    private let store: CacheStore
    private let pool: BlockingPool
    private let logger: Logger
    /// The manifest's URLs: their refs are never evicted.
    private let urls: [AssetURL]
    /// The objects the readiness index names for messages not decided yet.
    private let undecided: @Sendable () async -> Set<String>
    let holds = ObjectHolds()
    private struct State {
        /// Nothing more can be evicted: later asks return at once.
        var exhausted = false
        var evictedRefs = 0
        var freedBytes: Int64 = 0
    }

    private let state = Mutex(State())

    init(store: CacheStore, pool: BlockingPool, logger: Logger, urls: [AssetURL], undecided: @escaping @Sendable () async -> Set<String>) {
        self.store = store
        self.pool = pool
        self.logger = logger
        self.urls = urls
        self.undecided = undecided
    }

    /// Refs evicted, and the bytes of the objects and trees removed with them, so far.
    var evicted: (refs: Int, bytes: Int64) { state.withLock { ($0.evictedRefs, $0.freedBytes) } }

    /// Evicts until `bytes` of objects and trees are removed, or nothing the
    /// run may evict is left; whether anything was removed.
    func makeRoom(_ bytes: Int64) async -> Bool {
        guard !state.withLock({ $0.exhausted }) else { return false }
        let inUse = await undecided()
        return await pool.run { [self] in evict(bytes, keeping: inUse) }
    }

    /// One pass; passes never overlap (the state's lock is held throughout).
    private func evict(_ bytes: Int64, keeping inUse: Set<String>) -> Bool {
        state.withLock { state in
            guard !state.exhausted else { return false }
            let roots = store.readState().roots(needing: urls.map(store.refName(for:)), objectsInUse: inUse)
            let plan = store.evictionPlan(budget: .max, roots: roots, freeing: bytes)
            let swept = store.sweep(plan, sparing: holds)
            let freed = swept.bytesBefore - swept.bytesAfter
            state.evictedRefs += swept.evictedRefs
            state.freedBytes += freed
            // Short of what was asked: nothing else may go in this run.
            if freed < bytes { state.exhausted = true }
            if swept.evictedRefs > 0 || freed > 0 {
                logger.info(
                    "made room above the free-space floor (--min-free): evicted \(swept.evictedRefs) refs the manifest does not need, removed \(swept.removedObjects) objects and \(swept.removedTrees) trees (\(freed) bytes)")
            }
            return freed > 0
        }
    }
}
