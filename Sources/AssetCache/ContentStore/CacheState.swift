#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `state.json`: what a cache remembers between runs — the budget given to the last
/// `run --budget`, a summary of the last run for `status`, where the scrub
/// goes on, and the 304s that renewed a copy's freshness. A run writes it once,
/// at its end: whatever a run of an unchanged manifest has to remember goes
/// into this one write (docs/cache-format.md#what-a-run-writes).
public struct CacheState: Sendable, Codable, Equatable {
    public static let defaultBudget: Int64 = 1 << 30

    public struct LastRun: Sendable, Codable, Equatable {
        public var finishedAt: Double
        public var durationMs: Int
        public var messages, ready, discarded, deferred, expired, assets: Int
        public var downloadedBytes: Int64
        /// Ref files of the URLs that run's manifest needed, as a release
        /// before `needed.json` wrote them; read only when that file is absent.
        public var needed: [String]?

        enum CodingKeys: String, CodingKey {
            case messages, ready, discarded, deferred, expired, assets, needed
            case finishedAt = "finished_at"
            case durationMs = "duration_ms"
            case downloadedBytes = "downloaded_bytes"
        }
    }

    public var budget: Int64
    public var lastRun: LastRun?
    /// Ref files of the stored copies of the manifest URLs that runs used (a
    /// manifest's and its `.sig`'s), the most recently used first, at most
    /// ``pinnedManifestRefs``: the copy that stands in when the server is down
    /// is kept as `needed` refs are, so that it is there when it is needed.
    public var manifests: [String]
    /// Where the scrub goes on; nil before the first scrub.
    package var scrub: ScrubPosition?
    /// Ref files whose copy a 304 confirmed with a freshness lifetime, and
    /// what it said, in place of rewriting each ref (``Revalidation``).
    package var revalidated: [String: Revalidation]

    /// Eight URLs with their signatures: a device runs one URL, or a few while
    /// its configuration changes; a URL whose query changes every run (a
    /// signed-URL token) must not pin a copy per run.
    public static let pinnedManifestRefs = 16

    public init(budget: Int64 = CacheState.defaultBudget, lastRun: LastRun? = nil, manifests: [String] = []) {
        self.budget = budget
        self.lastRun = lastRun
        self.manifests = manifests
        revalidated = [:]
    }

    /// A state.json of an older release has no `manifests`, `scrub` or `revalidated`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        budget = try container.decode(Int64.self, forKey: .budget)
        lastRun = try container.decodeIfPresent(LastRun.self, forKey: .lastRun)
        manifests = try container.decodeIfPresent([String].self, forKey: .manifests) ?? []
        scrub = try? container.decodeIfPresent(ScrubPosition.self, forKey: .scrub)
        revalidated = (try? container.decodeIfPresent([String: Revalidation].self, forKey: .revalidated)) ?? [:]
    }

    enum CodingKeys: String, CodingKey {
        case budget, manifests, scrub, revalidated
        case lastRun = "last_run"
    }

    /// Bytes state.json may have: its revalidations grow with the assets
    /// (about 110 bytes each), and an unreadable state would lose the budget.
    static let sizeLimit = 64 << 20
}

extension CacheStore {
    public func readState() -> CacheState {
        guard let bytes = directory.contents(of: "state.json", limit: CacheState.sizeLimit),
              let state = try? JSONDecoder().decode(CacheState.self, from: Data(bytes)) else { return CacheState() }
        return state
    }

    /// A run used the stored copy of a manifest URL (`refs`: its ref and its
    /// signature's): it goes first among the pinned ones, and its last use moves
    /// (to within a granule, as an asset's). state.json is rewritten only when
    /// that order changes: a device that runs one URL writes it once.
    package func rememberManifest(refs: [String], now: Double) throws(StoreError) {
        for name in refs { touchRef(named: name, now: now) }
        var state = readState()
        let manifests = Array((refs + state.manifests.filter { !refs.contains($0) }).prefix(CacheState.pinnedManifestRefs))
        guard manifests != state.manifests else { return }
        state.manifests = manifests
        try writeState(state)
    }

    /// Without spaces or line breaks: its revalidations grow with the assets,
    /// and every run writes it.
    package func writeState(_ state: CacheState) throws(StoreError) {
        try writeJSON(state, as: "state.json", formatting: [.sortedKeys])
    }

    /// `value` as JSON in the cache's root, written in `tmp/`, flushed and renamed.
    func writeJSON(_ value: some Encodable, as name: String, formatting: JSONEncoder.OutputFormatting) throws(StoreError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = formatting
        do {
            try FileSystem.writeAtomically(
                Array(try encoder.encode(value)), to: directory, as: name, temporary: tmp, mode: Self.privateFileMode)
        } catch let error as FileSystem.Failure {
            throw StoreError(error, root: directory.path)
        } catch {
            throw .io("encoding \(name): \(error)")
        }
    }
}
