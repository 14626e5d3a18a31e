import Logging

/// A host the run could not reach while cached copies of its assets stood in
/// (`stale`): one warning line each at the default log level, so that a server
/// down is not mistaken for a quiet run, and the exit code `run` gives it.
public struct StaleHost: Sendable, Equatable {
    /// Scheme, host and port, without credentials.
    public var host: String
    /// Ready messages that show at least one of its stale copies.
    public var messages: Int
    public var assets: Int
    /// When the oldest of those copies was stored (epoch seconds).
    public var oldestFetchedAt: Double
    /// Why the first of them could not be revalidated.
    public var failure: AssetFailure
}

extension PrefetchReport {
    /// The hosts of the assets in use as stale copies, in the order of their
    /// first asset in the report.
    public var staleHosts: [StaleHost] {
        var order: [String] = []
        var byHost: [String: [AssetRecord]] = [:]
        for record in assets where record.outcome == .stale {
            let key = Transfer.hostKey(of: record.url.string)
            if byHost[key] == nil { order.append(key) }
            byHost[key, default: []].append(record)
        }
        return order.map { key in
            let records = byHost[key] ?? []
            let urls = Set(records.map(\.url.string))
            let shown = messages.count { message in
                message.verdict.status == .ready && message.verdict.assets.contains { urls.contains($0.url.string) }
            }
            return StaleHost(
                host: key, messages: shown, assets: urls.count, oldestFetchedAt: records.compactMap(\.staleSince).min() ?? 0,
                failure: records.lazy.compactMap(\.failure).first ?? AssetFailure(.network, "could not be reached"))
        }
    }

    /// One warning per host: how many messages run on stale copies, and since when.
    public func logStaleHosts(to logger: Logger, now: Double) {
        for host in staleHosts {
            let age = max(0, now - host.oldestFetchedAt)
            logger.warning(
                """
                \(host.host) could not be reached (\(host.failure)): \(host.messages) \(host.messages == 1 ? "message runs" : "messages run") \
                on stale copies of \(host.assets) \(host.assets == 1 ? "asset" : "assets"), the oldest stored \
                \(RFC3339Date.format(host.oldestFetchedAt)) (\(Self.ageText(age)) ago)
                """,
                metadata: ["host": "\(host.host)", "messages": "\(host.messages)", "error.kind": "\(host.failure.kind.rawValue)"])
        }
    }

    /// Seconds as a person reads an age: the largest whole unit.
    static func ageText(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded(.down))
        switch whole {
        case ..<120: return "\(whole) s"
        case ..<7_200: return "\(whole / 60) min"
        case ..<172_800: return "\(whole / 3_600) h"
        default: return "\(whole / 86_400) days"
        }
    }
}
