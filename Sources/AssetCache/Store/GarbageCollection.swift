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
    /// needs, nor a stored manifest a run used (``CacheState/manifests``), nor
    /// one a display app leases, then sweeps objects and trees that
    /// nothing names. `budget`, when given, stands for the remembered one this
    /// once (`gc --budget`). Only a store opened with
    /// ``openForWriting(at:wait:logger:)`` may collect.
    public func collectGarbage(budget: Int64? = nil) -> GarbageCollection {
        let state = readState()
        return collectGarbage(budget: budget ?? state.budget, neededRefs: state.pinnedRefs)
    }

    /// Least recently used refs are evicted until the cache is at 90% of the budget,
    /// never one in `neededRefs` (ref file names) nor one whose object a display
    /// app leases (evicting it would free nothing) — then objects and trees
    /// that no ref names are swept, but leased ones. Only a writer holding the
    /// lock may call this, with no commit under way.
    package func collectGarbage(budget: Int64, neededRefs: Set<String>, neededObjects: Set<String> = []) -> GarbageCollection {
        tendLeases()
        var refs = refNames().compactMap { name -> (name: String, object: String, used: Double)? in
            guard let ref = readRef(named: name), let info = self.refs.status(name) else { return nil }
            return (name, ref.object, LibC.modificationTime(info))
        }
        var objectSizes = self.objectSizes()
        for sha in treeNames() { objectSizes[sha, default: 0] += treeSize(sha) }

        var users: [String: Int] = [:]
        for ref in refs { users[ref.object, default: 0] += 1 }
        let isKept = { (sha: String) in (users[sha] ?? 0) > 0 || neededObjects.contains(sha) }
        var result = GarbageCollection(budget: budget, bytesBefore: objectSizes.values.reduce(0, +), bytesAfter: 0)
        var total = objectSizes.filter { isKept($0.key) }.values.reduce(0, +)
        var keptLeased: Set<String> = []

        if total > budget {
            let target = budget / 10 * 9
            var leased: [String: Bool] = [:]
            refs.sort { $0.used < $1.used }
            for ref in refs where total > target && !neededRefs.contains(ref.name) {
                let leasedNow = leased[ref.object] ?? isLeased(sha256: ref.object)
                leased[ref.object] = leasedNow
                if leasedNow {
                    keptLeased.insert(ref.object)
                    continue
                }
                self.refs.unlink(ref.name)
                result.evictedRefs += 1
                users[ref.object, default: 1] -= 1
                if !isKept(ref.object) { total -= objectSizes[ref.object] ?? 0 }
            }
            let leasedBytes = keptLeased.reduce(0) { $0 + (objectSizes[$1] ?? 0) }
            result.neededExceedBudget = total - leasedBytes > budget
        }
        for sha in objectSizes.keys where !isKept(sha) {
            guard let hold = holdForRemoval(sha) else {
                keptLeased.insert(sha)
                total += objectSizes[sha] ?? 0
                continue
            }
            if let shard = shard(of: sha, in: objects), shard.status(sha) != nil {
                shard.unlink(sha)
                result.removedObjects += 1
            }
            if let shard = shard(of: sha, in: trees), shard.status(sha) != nil {
                removeTree(sha)
                result.removedTrees += 1
            }
            hold.end(removingLeaseFile: true)
        }
        removeEmptyShards()
        result.keptLeased = keptLeased.count
        result.keptLeasedBytes = keptLeased.reduce(0) { $0 + (objectSizes[$1] ?? 0) }
        result.bytesAfter = total
        return result
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
