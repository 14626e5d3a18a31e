/// A message's verdict (docs/report.md). Raw values are the report's `status` strings.
public enum MessageStatus: String, Sendable, Codable {
    case ready, discarded, deferred, expired
}

/// Why a message is not shown: why it is discarded, or why this run deferred
/// it to a later one. Raw values are the report's `reason` strings.
public enum DiscardReason: String, Sendable, Codable, CaseIterable {
    case unsupportedMessageType = "unsupported_message_type"
    case fullWithoutImage = "full_without_image"
    case imageOnlyModalWithoutImage = "image_only_modal_without_image"
    case assetDownloadFailed = "asset_download_failed"
    case assetInvalid = "asset_invalid"
    /// The signed manifest is past its `expires` and no newer one could be had.
    case manifestExpired = "manifest_expired"
    /// `--require-integrity`: an asset of the message has no `integrity` pin.
    case integrityMissing = "integrity_missing"
    // Deferred, not discarded.
    /// An asset is not prefetched (`"prefetch": false`, `cache=false`): it is
    /// fetched at display time.
    case notPrefetched = "not_prefetched"
    // Deferred: the run's own limits left an asset for a later run.
    /// `--max-download-bytes`: the asset did not fit in what was left of the run's byte budget.
    case byteBudget = "byte_budget"
    /// `--metered`: the link is metered, and the asset is neither a session-start
    /// or push-click one nor under `--metered-max-asset-bytes`.
    case metered
    /// `--min-free`: writing the asset would take the cache's file system
    /// below its free-space floor, after evicting what the manifest does not need.
    case storageLow = "storage_low"
    // Decided by the delivery engine at display time.
    case displayTimeout = "display_timeout"
    case orientationMismatch = "orientation_mismatch"
    case presenterDiscarded = "presenter_discarded"
}

/// What the cache can say about one asset URL.
public enum AssetState: Sendable, Equatable {
    /// Usable: the object file, or the unpacked directory of a ZIP.
    case available(path: String)
    /// Deliberately not prefetched (`prefetch: false`, `cache=false`).
    case skipped
    case failed(AssetFailure)
    /// Left for a later run by this run's limits (`byte_budget`, `metered`, `storage_low`).
    case deferred(DiscardReason)
}

public struct MessageVerdict: Sendable, Equatable {
    public struct LocalAsset: Sendable, Equatable {
        public var url: AssetURL
        public var kind: AssetKind
        public var path: String
    }

    public var status: MessageStatus
    public var reason: DiscardReason?
    /// For asset discards: the failing asset's `kind: message`.
    public var detail: String?
    /// The URL whose failure decided the verdict, and that failure's kind
    /// (`offline_miss`: the cache has no copy of it yet).
    public var failingURL: AssetURL?
    public var failureKind: AssetErrorKind?
    /// The local files of a ready message.
    public var assets: [LocalAsset]

    static func discarded(_ reason: DiscardReason, detail: String? = nil, url: AssetURL? = nil, kind: AssetErrorKind? = nil) -> MessageVerdict {
        MessageVerdict(status: .discarded, reason: reason, detail: detail, failingURL: url, failureKind: kind, assets: [])
    }
}
