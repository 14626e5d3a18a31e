/// Which refs an eviction pass removes, and which objects and trees are then
/// left unreferenced: the least recently used policy alone, computed from what
/// the cache holds, with no file system access (as containerd's `Tricolor`
/// is pure, and when it runs is separate). ``CacheStore/sweep(_:)`` carries
/// it out.
///
/// Least recently used refs are evicted until the kept objects and trees are
/// at 90% of the budget, never one that ``CacheRoots`` keeps nor one whose
/// object a display app leases (evicting it would free nothing); then every
/// object or tree that no remaining ref and no root names is unreferenced.
package struct EvictionPlan: Sendable, Equatable {
    /// One ref file, the object it names, and when it was last used (its
    /// modification time).
    package struct Ref: Sendable, Equatable {
        package var name: String
        package var object: String
        package var lastUsed: Double
    }

    package let budget: Int64
    /// The bytes of each object with its tree, by SHA-256.
    package let sizes: [String: Int64]
    /// The ref file names to remove, least recently used first.
    package private(set) var evictedRefs: [String] = []
    /// The objects and trees that nothing keeps once those refs are gone,
    /// sorted: the sweep removes each one no display app leases.
    package private(set) var unreferenced: [String] = []
    /// Objects whose refs were kept because a display app leases them.
    package private(set) var keptLeased: Set<String> = []
    package let bytesBefore: Int64
    /// The bytes kept once every unreferenced object and tree is removed.
    package private(set) var bytesAfter: Int64 = 0
    /// The roots and the leased objects alone exceed the budget; they were kept.
    package private(set) var neededExceedBudget = false

    /// `isLeased` is asked at most once per object, only of the objects of
    /// refs the plan would evict, in that order: a lease is the file system's
    /// state at that moment. `freeing`, when given, stands for the budget:
    /// refs are evicted until that many bytes are unreferenced (a run that
    /// needs room under its free-space floor, ``RoomMaker``).
    package init(
        refs: [Ref], sizes: [String: Int64], budget: Int64, roots: CacheRoots, freeing: Int64? = nil, isLeased: (String) -> Bool
    ) {
        self.budget = budget
        self.sizes = sizes
        bytesBefore = sizes.values.reduce(0, +)
        var users: [String: Int] = [:]
        for ref in refs { users[ref.object, default: 0] += 1 }
        let isKept = { (sha: String) in (users[sha] ?? 0) > 0 || roots.objectsInUse.contains(sha) }
        var total = sizes.filter { isKept($0.key) }.values.reduce(0, +)

        if total > budget || freeing != nil {
            let target = freeing.map { total - $0 } ?? budget / 10 * 9
            var leased: [String: Bool] = [:]
            for ref in refs.sorted(by: { $0.lastUsed < $1.lastUsed }) where total > target && !roots.keeps(ref: ref.name) {
                let leasedNow = leased[ref.object] ?? isLeased(ref.object)
                leased[ref.object] = leasedNow
                if leasedNow {
                    keptLeased.insert(ref.object)
                    continue
                }
                evictedRefs.append(ref.name)
                users[ref.object, default: 1] -= 1
                if !isKept(ref.object) { total -= size(of: ref.object) }
            }
            neededExceedBudget = total - bytes(of: keptLeased) > budget
        }
        unreferenced = sizes.keys.filter { !isKept($0) }.sorted()
        bytesAfter = total
    }

    package func size(of sha: String) -> Int64 { sizes[sha] ?? 0 }

    package func bytes(of shas: Set<String>) -> Int64 { shas.reduce(0) { $0 + size(of: $1) } }
}
