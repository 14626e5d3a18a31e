import Testing
@testable import AssetCache

/// The eviction policy alone, without a cache: refs, sizes, budget and roots in,
/// which refs go and which objects are left unreferenced out
/// (docs/cache-format.md#what-keeps-an-object).
@Suite struct EvictionPlanTests {
    /// Four refs a, b, c, d naming objects A, B, C, D of 100 bytes each, used in
    /// that order (a least recently), and an object O no ref names.
    static let refs = ["a", "b", "c", "d"].enumerated().map { index, name in
        EvictionPlan.Ref(name: name, object: name.uppercased(), lastUsed: Double(index))
    }
    static let sizes: [String: Int64] = ["A": 100, "B": 100, "C": 100, "D": 100, "O": 50]

    static func plan(
        refs: [EvictionPlan.Ref] = refs, budget: Int64, roots: CacheRoots = CacheRoots(), leased: Set<String> = []
    ) -> EvictionPlan {
        EvictionPlan(refs: refs.reversed(), sizes: sizes, budget: budget, roots: roots) { leased.contains($0) }
    }

    @Test func underTheBudgetNoRefGoesButWhatNoRefNames() {
        let plan = Self.plan(budget: 400)
        #expect(plan.evictedRefs == [])
        #expect(plan.unreferenced == ["O"])
        #expect(plan.bytesBefore == 450)
        #expect(plan.bytesAfter == 400)
        #expect(!plan.neededExceedBudget)
    }

    /// Over budget, the least recently used go until the rest is at 90% of it.
    @Test func theLeastRecentlyUsedGoDownToNinetyPercent() {
        let plan = Self.plan(budget: 300)
        // 400 > 300: a goes (300), then b (200 <= 270), and c and d stay.
        #expect(plan.evictedRefs == ["a", "b"])
        #expect(plan.unreferenced == ["A", "B", "O"])
        #expect(plan.bytesAfter == 200)
        #expect(!plan.neededExceedBudget)
    }

    @Test func neededRefsAndStoredManifestsAreNeverEvicted() {
        let roots = CacheRoots(neededRefs: ["a"], storedManifests: ["b"])
        let plan = Self.plan(budget: 0, roots: roots)
        #expect(plan.evictedRefs == ["c", "d"])
        #expect(plan.unreferenced == ["C", "D", "O"])
        #expect(plan.bytesAfter == 200)
        #expect(plan.neededExceedBudget)
    }

    /// An object a run's index still names stays though its ref goes, and so
    /// does one no ref names.
    @Test func objectsInUseStayWithoutTheirRefs() {
        let plan = Self.plan(budget: 0, roots: CacheRoots(objectsInUse: ["A", "O"]))
        #expect(plan.evictedRefs == ["a", "b", "c", "d"])
        #expect(plan.unreferenced == ["B", "C", "D"])
        #expect(plan.bytesAfter == 150)
        #expect(plan.neededExceedBudget)
    }

    /// Evicting one of two refs of an object frees nothing: the next goes too.
    @Test func anObjectIsFreedWithItsLastRef() {
        let shared = Self.refs + [EvictionPlan.Ref(name: "a2", object: "A", lastUsed: 10)]
        let plan = Self.plan(refs: shared, budget: 350)
        // 400 > 350: a frees nothing (a2 names A), b frees 100 (300 <= 315).
        #expect(plan.evictedRefs == ["a", "b"])
        #expect(plan.unreferenced == ["B", "O"])
        #expect(plan.bytesAfter == 300)
    }

    /// A leased object's ref is kept (evicting it would free nothing), and the
    /// next least recently used goes instead; the lease is asked once per
    /// object, only of the refs the plan would evict.
    @Test func aLeasedObjectKeepsItsRef() {
        var asked: [String] = []
        let plan = EvictionPlan(refs: Self.refs, sizes: Self.sizes, budget: 300, roots: CacheRoots()) { sha in
            asked.append(sha)
            return sha == "A"
        }
        #expect(plan.evictedRefs == ["b", "c"])
        #expect(plan.keptLeased == ["A"])
        #expect(plan.unreferenced == ["B", "C", "O"])
        #expect(plan.bytesAfter == 200)
        #expect(asked == ["A", "B", "C"])
    }

    /// What is over the budget only because it is leased does not count as the
    /// roots exceeding it.
    @Test func leasedBytesDoNotCountAsNeededOverTheBudget() {
        let roots = CacheRoots(neededRefs: ["d"])
        let leased = Self.plan(budget: 100, roots: roots, leased: ["A"])
        #expect(leased.evictedRefs == ["b", "c"])
        #expect(leased.bytesAfter == 200)
        #expect(!leased.neededExceedBudget)
        let needed = Self.plan(budget: 100, roots: CacheRoots(neededRefs: ["c", "d"]))
        #expect(needed.bytesAfter == 200)
        #expect(needed.neededExceedBudget)
    }

    /// A run's own eviction keeps its own needed refs, not the last run's,
    /// and the stored manifests `state.json` remembers.
    @Test func theRootsAreBuiltFromTheState() {
        let state = CacheState(manifests: ["m.json", "m.sig.json"])
        #expect(state.roots(needing: ["new.json"], objectsInUse: ["A"])
            == CacheRoots(neededRefs: ["new.json"], storedManifests: ["m.json", "m.sig.json"], objectsInUse: ["A"]))
        #expect(CacheState().roots(needing: []) == CacheRoots())
    }
}
