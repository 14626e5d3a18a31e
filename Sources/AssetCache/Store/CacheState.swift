#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `state.json`: what a cache remembers between runs — the budget given to the last
/// `run --budget`, a summary of the last run for `status`, and the last run
/// that failed after this one, so that `status` can say so and why.
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

    /// A run that ended in an error after it took the cache's lock (a manifest
    /// that could not be fetched or was refused, a disk that failed): it
    /// leaves no `lastRun`, and without this `status` would show the run
    /// before it as if nothing had happened since. A finished run clears it.
    public struct LastFailure: Sendable, Codable, Equatable {
        public var failedAt: Double
        public var exitStatus: Int32
        /// The error as the run printed it, at most ``messageLimit`` bytes;
        /// it may quote a server, so whoever prints it escapes it.
        public var message: String

        public static let messageLimit = 1024

        public init(failedAt: Double, exitStatus: Int32, message: String) {
            self.failedAt = failedAt
            self.exitStatus = exitStatus
            var bytes = 0
            let kept = message.unicodeScalars.prefix { scalar in
                bytes += scalar.utf8.count
                return bytes <= Self.messageLimit
            }
            self.message = String(String.UnicodeScalarView(kept))
        }

        enum CodingKeys: String, CodingKey {
            case message
            case failedAt = "failed_at"
            case exitStatus = "exit_status"
        }
    }

    public var budget: Int64
    public var lastRun: LastRun?
    public var lastFailure: LastFailure?
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

    /// A state.json of an older release has no `manifests` and no `last_failure`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        budget = try container.decode(Int64.self, forKey: .budget)
        lastRun = try container.decodeIfPresent(LastRun.self, forKey: .lastRun)
        lastFailure = try container.decodeIfPresent(LastFailure.self, forKey: .lastFailure)
        manifests = try container.decodeIfPresent([String].self, forKey: .manifests) ?? []
    }

    enum CodingKeys: String, CodingKey {
        case budget, manifests
        case lastRun = "last_run"
        case lastFailure = "last_failure"
    }
}

extension CacheStore {
    public func readState() -> CacheState {
        guard let bytes = directory.contents(of: "state.json"),
              let state = try? JSONDecoder().decode(CacheState.self, from: Data(bytes)) else { return CacheState() }
        return state
    }

    /// A run used the stored copy of a manifest URL (`refs`: its ref and its
    /// signature's): it goes first among the pinned ones, and its last use moves.
    package func rememberManifest(refs: [String]) throws(StoreError) {
        for name in refs { self.refs.touch(name) }
        var state = readState()
        state.manifests = Array((refs + state.manifests.filter { !refs.contains($0) }).prefix(CacheState.pinnedManifestRefs))
        try writeState(state)
    }

    /// A run failed after it took the lock: `status` says so until a run finishes.
    package func recordFailedRun(_ failure: CacheState.LastFailure) throws(StoreError) {
        var state = readState()
        state.lastFailure = failure
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
