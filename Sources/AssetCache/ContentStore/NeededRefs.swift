#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `needed.json`: the ref files the last run's manifest needed, which `gc`
/// keeps (``CacheRoots``). Apart from `state.json`, which every run rewrites,
/// because it changes only with the manifest: a run of an unchanged manifest
/// leaves it alone (docs/cache-format.md#what-a-run-writes).
struct NeededRefs: Codable, Equatable {
    var refs: [String]

    static let fileName = "needed.json"
    /// 72 bytes a ref: room for far more assets than a manifest may name.
    static let sizeLimit = 64 << 20
}

extension CacheStore {
    /// The last run's needed refs; a cache of a release before `needed.json`
    /// has them in `state.json`'s `last_run`.
    package func readNeededRefs() -> [String] {
        storedNeededRefs()?.refs ?? readState().lastRun?.needed ?? []
    }

    /// Written, and flushed, only when the set differs from the stored one.
    package func rememberNeededRefs(_ names: [String]) throws(StoreError) {
        let needed = NeededRefs(refs: Set(names).sorted())
        guard storedNeededRefs() != needed else { return }
        try writeJSON(needed, as: NeededRefs.fileName, formatting: [])
    }

    /// `needed.json` as stored; nil when absent or unreadable.
    private func storedNeededRefs() -> NeededRefs? {
        directory.contents(of: NeededRefs.fileName, limit: NeededRefs.sizeLimit)
            .flatMap { try? JSONDecoder().decode(NeededRefs.self, from: Data($0)) }
    }
}
