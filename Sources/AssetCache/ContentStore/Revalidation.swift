#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

/// A 304 that confirmed a cached copy and gave it a freshness lifetime,
/// remembered in `state.json` rather than by rewriting the copy's ref: a run
/// that revalidates 500 assets then writes one file, not 500
/// (docs/cache-format.md#what-a-run-writes). Stored as
/// `[fetched_at, revalidated_at, max_age]` under the ref file's name.
package struct Revalidation: Sendable, Codable, Equatable {
    /// The ref's own `fetched_at`: the copy confirmed. A ref rewritten since
    /// (a new body, new validators) has another, and the entry no longer applies.
    var copyFetchedAt: Double
    /// When the server confirmed it: the ref's `fetched_at` from then on.
    var revalidatedAt: Double
    /// The lifetime the 304 gave, in seconds from `revalidatedAt`.
    var maxAge: Double

    init(copyFetchedAt: Double, revalidatedAt: Double, maxAge: Double) {
        // Milliseconds: the times are compared to within one, and each entry
        // is written by every run while its ref is needed.
        self.copyFetchedAt = Self.milliseconds(copyFetchedAt)
        self.revalidatedAt = Self.milliseconds(revalidatedAt)
        self.maxAge = maxAge
    }

    private static func milliseconds(_ time: Double) -> Double { (time * 1000).rounded() / 1000 }

    /// `ref` as the server last confirmed it, when this entry is about that
    /// copy and newer than its ref.
    func applied(to ref: AssetRef) -> AssetRef {
        guard abs(ref.fetchedAt - copyFetchedAt) < 0.001, revalidatedAt > ref.fetchedAt else { return ref }
        var confirmed = ref
        confirmed.fetchedAt = revalidatedAt
        confirmed.maxAge = maxAge
        return confirmed
    }

    package init(from decoder: any Decoder) throws {
        var fields = try decoder.unkeyedContainer()
        self.init(
            copyFetchedAt: try fields.decode(Double.self), revalidatedAt: try fields.decode(Double.self),
            maxAge: try fields.decode(Double.self))
    }

    package func encode(to encoder: any Encoder) throws {
        var fields = encoder.unkeyedContainer()
        try fields.encode(copyFetchedAt)
        try fields.encode(revalidatedAt)
        try fields.encode(maxAge)
    }
}

/// The revalidations a store applies to the refs it reads: those `state.json`
/// held when first needed, and this run's, which its end writes there.
final class Revalidations: Sendable {
    private let entries = Mutex<[String: Revalidation]?>(nil)

    /// The entries, read from `state.json` by `load` the first time.
    func withEntries<T>(load: () -> [String: Revalidation], _ body: (inout [String: Revalidation]) -> T) -> T {
        entries.withLock { stored in
            var current = stored ?? load()
            defer { stored = current }
            return body(&current)
        }
    }
}

extension CacheStore {
    private func withRevalidations<T>(_ body: (inout [String: Revalidation]) -> T) -> T {
        revalidations.withEntries(load: { readState().revalidated }, body)
    }

    /// `ref`, read from the file `name`, as the last 304 left it.
    func confirmed(_ ref: AssetRef, named name: String) -> AssetRef {
        withRevalidations { $0[name] }.map { $0.applied(to: ref) } ?? ref
    }

    /// A 304 confirmed `copy` (as read, its revalidation applied) at `now`
    /// with `maxAge`: remembered for this run's reads, and written with the
    /// run's state (``revalidationsToKeep(refs:)``).
    package func recordRevalidation(for url: AssetURL, of copy: AssetRef, at now: Double, maxAge: Double) {
        let name = refName(for: url)
        withRevalidations { entries in
            // The copy's own time is the file's, not one an entry applied.
            let applied = entries[name].map { $0.revalidatedAt == copy.fetchedAt } ?? false
            let copyFetchedAt = applied ? entries[name]!.copyFetchedAt : copy.fetchedAt
            entries[name] = Revalidation(copyFetchedAt: copyFetchedAt, revalidatedAt: now, maxAge: maxAge)
        }
    }

    /// The entries whose refs a run still keeps (`refs`): one for a ref the
    /// manifest no longer needs goes, so state.json holds at most one per
    /// needed asset.
    package func revalidationsToKeep(refs: Set<String>) -> [String: Revalidation] {
        withRevalidations { entries in entries.filter { refs.contains($0.key) } }
    }
}
