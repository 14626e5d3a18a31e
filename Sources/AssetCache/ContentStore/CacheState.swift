#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `state.json`: what a cache remembers between runs — the budget given to the last
/// `run --budget`, and a summary of the last run for `status`.
public struct CacheState: Sendable, Codable, Equatable {
    public static let defaultBudget: Int64 = 1 << 30

    public struct LastRun: Sendable, Codable, Equatable {
        public var finishedAt: Double
        public var durationMs: Int
        public var messages, ready, discarded, deferred, expired, assets: Int
        public var downloadedBytes: Int64
        /// Ref files of the URLs that run's manifest needed: `gc` keeps them too.
        public var needed: [String]

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

    /// Eight URLs with their signatures: a device runs one URL, or a few while
    /// its configuration changes; a URL whose query changes every run (a
    /// signed-URL token) must not pin a copy per run.
    public static let pinnedManifestRefs = 16

    public init(budget: Int64 = CacheState.defaultBudget, lastRun: LastRun? = nil, manifests: [String] = []) {
        self.budget = budget
        self.lastRun = lastRun
        self.manifests = manifests
    }

    /// A state.json of an older release has no `manifests`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        budget = try container.decode(Int64.self, forKey: .budget)
        lastRun = try container.decodeIfPresent(LastRun.self, forKey: .lastRun)
        manifests = try container.decodeIfPresent([String].self, forKey: .manifests) ?? []
    }

    enum CodingKeys: String, CodingKey {
        case budget, manifests
        case lastRun = "last_run"
    }
}

extension CacheStore {
    public func readState() -> CacheState {
        guard let bytes = directory.contents(of: "state.json"),
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

    package func writeState(_ state: CacheState) throws(StoreError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        do {
            try FileSystem.writeAtomically(
                Array(try encoder.encode(state)), to: directory, as: "state.json", temporary: tmp, mode: Self.privateFileMode)
        } catch let error as FileSystem.Failure {
            throw StoreError(error, root: directory.path)
        } catch {
            throw .io("encoding state.json: \(error)")
        }
    }
}
