#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// What one eviction pass did, for the log and `gc`'s output.
public struct GarbageCollection: Sendable, Equatable {
    public var budget: Int64
    public var bytesBefore: Int64
    public var bytesAfter: Int64
    public var evictedRefs = 0
    public var removedObjects = 0
    public var removedTrees = 0
    /// The refs that must be kept alone exceed the budget; they were kept.
    public var neededExceedBudget = false
    /// Objects (with their trees) that this pass would have removed, kept
    /// because a display app leases them, and their bytes.
    public var keptLeased = 0
    public var keptLeasedBytes: Int64 = 0

    public init(budget: Int64, bytesBefore: Int64, bytesAfter: Int64) {
        self.budget = budget
        self.bytesBefore = bytesBefore
        self.bytesAfter = bytesAfter
    }
}

extension CacheStore {
    /// What `prefetch gc` does: evicts least recently used assets down to 90% of
    /// the budget remembered in the cache, never one the last run's manifest
    /// needs, nor a stored manifest a run used (``CacheState/roots(needing:objectsInUse:)``), nor
    /// one a display app leases, then sweeps objects and trees that
    /// nothing names. `budget`, when given, stands for the remembered one this
    /// once (`gc --budget`). Only a store opened with
    /// ``openForWriting(at:wait:logger:)`` may collect.
    public func collectGarbage(budget: Int64? = nil) -> GarbageCollection {
        let state = readState()
        return collectGarbage(budget: budget ?? state.budget, roots: state.roots(needing: readNeededRefs()))
    }

    /// Plans the eviction down to `budget` that keeps `roots` and what display
    /// apps lease (``EvictionPlan``), then carries it out (``sweep(_:)``).
    /// Only a writer holding the lock may call this, with no commit under way.
    package func collectGarbage(budget: Int64, roots: CacheRoots) -> GarbageCollection {
        reconcileLeaseFiles()
        return sweep(evictionPlan(budget: budget, roots: roots))
    }

    /// The plan for what the cache holds now (``EvictionPlan``).
    func evictionPlan(budget: Int64, roots: CacheRoots, freeing: Int64? = nil) -> EvictionPlan {
        var sizes = objectSizes()
        for sha in treeNames() { sizes[sha, default: 0] += treeSize(sha) }
        return EvictionPlan(refs: refUses(), sizes: sizes, budget: budget, roots: roots, freeing: freeing) { isLeased(sha256: $0) }
    }

    /// Every ref with the object it names and its last use, for the plan.
    private func refUses() -> [EvictionPlan.Ref] {
        refNames().compactMap { name in
            guard let ref = readRef(named: name), let info = refs.status(name) else { return nil }
            return EvictionPlan.Ref(name: name, object: ref.object, lastUsed: LibC.modificationTime(info))
        }
    }

    /// Removes the plan's refs, then each unreferenced object and tree under
    /// its ``LeaseRemovalLock``; one a display app leased meanwhile is kept,
    /// and counted with its bytes. Only a writer holding the lock may call this.
    /// `holds`: during a run, the objects its assets are committing, which
    /// stay (as do the shards commits are about to fill).
    func sweep(_ plan: EvictionPlan, sparing holds: ObjectHolds? = nil) -> GarbageCollection {
        var result = GarbageCollection(budget: plan.budget, bytesBefore: plan.bytesBefore, bytesAfter: plan.bytesAfter)
        result.neededExceedBudget = plan.neededExceedBudget
        for name in plan.evictedRefs { refs.unlink(name) }
        result.evictedRefs = plan.evictedRefs.count
        var keptLeased = plan.keptLeased
        for sha in plan.unreferenced {
            let removal = holds.map { $0.unlessHeld(sha) { removeUnreferenced(sha) } ?? .held } ?? removeUnreferenced(sha)
            switch removal {
            case .leased:
                keptLeased.insert(sha)
                result.bytesAfter += plan.size(of: sha)
            case .held:
                result.bytesAfter += plan.size(of: sha)
            case .removed(let object, let tree):
                if object { result.removedObjects += 1 }
                if tree { result.removedTrees += 1 }
            }
        }
        if holds == nil { removeEmptyShards() }
        result.keptLeased = keptLeased.count
        result.keptLeasedBytes = plan.bytes(of: keptLeased)
        return result
    }

    /// What became of an unreferenced object and its tree in a sweep.
    enum Removal {
        /// A display app leases it: it stays.
        case leased
        /// An asset of the run in progress is committing it: it stays.
        case held
        case removed(object: Bool, tree: Bool)
    }

    /// An object and its tree that nothing names, under its ``LeaseRemovalLock``.
    private func removeUnreferenced(_ sha: String) -> Removal {
        guard let lock = lockForRemoval(sha) else { return .leased }
        var object = false
        var tree = false
        if let shard = shard(of: sha, in: objects), shard.status(sha) != nil {
            shard.unlink(sha)
            object = true
        }
        if let shard = shard(of: sha, in: trees), shard.status(sha) != nil {
            removeTree(sha)
            tree = true
        }
        lock.end(removingLeaseFile: true)
        return .removed(object: object, tree: tree)
    }

    /// The shard directories (`objects/ab`, …) that eviction emptied: a cache
    /// that shrank does not keep hundreds of empty directories. Only writers
    /// make shards, and this one holds the lock: none is filled meanwhile.
    func removeEmptyShards() {
        for parent in [objects, trees] + (leases.map { [$0] } ?? []) {
            for name in parent.entries() where name.utf8.count == 2 {
                try? parent.removeEmptyDirectory(name)
            }
        }
    }

    /// A tree leaves `trees/` by one rename, so it is never seen half-deleted
    /// there; it is then removed from `tmp/` at any depth.
    func removeTree(_ sha: String) {
        guard let shard = shard(of: sha, in: trees) else { return }
        let doomed = temporaryFile("evicted")
        do {
            try shard.rename(sha, to: doomed.directory, as: doomed.name)
            // After the tree: a tree in place always has its list.
            shard.unlink(sha + TreeDigestList.suffix)
            try doomed.directory.remove(doomed.name)
        } catch {
            logger.warning("could not remove the tree \(shard.path(of: sha)): \(error)")
        }
    }
}
