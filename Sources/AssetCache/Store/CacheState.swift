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

    public init(budget: Int64 = CacheState.defaultBudget, lastRun: LastRun? = nil) {
        self.budget = budget
        self.lastRun = lastRun
    }

    enum CodingKeys: String, CodingKey {
        case budget
        case lastRun = "last_run"
    }
}

extension CacheStore {
    public func readState() -> CacheState {
        guard let bytes = directory.contents(of: "state.json"),
              let state = try? JSONDecoder().decode(CacheState.self, from: Data(bytes)) else { return CacheState() }
        return state
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
