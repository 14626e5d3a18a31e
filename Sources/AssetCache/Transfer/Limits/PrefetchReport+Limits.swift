/// The report's `budget` and `metered` (format 1.3.0): the run's download
/// limits and how many messages each left for a later run.
extension PrefetchReport {
    /// `--max-download-bytes`: the limit, and every body byte the run received.
    public struct ByteBudgetUse: Sendable, Equatable {
        public var maxDownloadBytes: Int64
    }

    /// Messages deferred for `reason` (`byte_budget`, `metered`).
    public func deferredMessages(_ reason: DiscardReason) -> Int {
        messages.count { $0.verdict.status == .deferred && $0.verdict.reason == reason }
    }

    func writeLimits(to json: inout PrettyJSON) {
        if let byteBudget {
            json.key("budget")
            json.object { json in
                json.key("max_download_bytes"); json.integer(byteBudget.maxDownloadBytes)
                json.key("downloaded_bytes"); json.integer(downloadedBytes)
                json.key("deferred_messages"); json.integer(deferredMessages(.byteBudget))
            }
        }
        if let meteredLink {
            json.key("metered")
            json.object { json in
                json.key("value"); json.bool(meteredLink.isMetered)
                json.key("source"); json.string(meteredLink.source.rawValue)
                json.key("max_asset_bytes"); json.integer(meteredLink.maxAssetBytes)
                json.key("deferred_messages"); json.integer(deferredMessages(.metered))
            }
        }
    }

    struct BudgetBody: Encodable {
        var max_download_bytes, downloaded_bytes: Int64
        var deferred_messages: Int
    }

    struct MeteredBody: Encodable {
        var value: Bool
        var source: String
        var max_asset_bytes: Int64
        var deferred_messages: Int
    }

    var budgetBody: BudgetBody? {
        byteBudget.map {
            BudgetBody(max_download_bytes: $0.maxDownloadBytes, downloaded_bytes: downloadedBytes, deferred_messages: deferredMessages(.byteBudget))
        }
    }

    var meteredBody: MeteredBody? {
        meteredLink.map {
            MeteredBody(value: $0.isMetered, source: $0.source.rawValue, max_asset_bytes: $0.maxAssetBytes, deferred_messages: deferredMessages(.metered))
        }
    }
}
