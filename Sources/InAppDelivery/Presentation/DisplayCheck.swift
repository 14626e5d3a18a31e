import AssetCache

/// The discards decided at display time, before the presenter is asked (docs/delivery.md).
struct DisplayCheck {
    enum Outcome {
        case showable([MessageVerdict.LocalAsset])
        case discard(DiscardReason, detail: String?)
        /// An asset is not in the cache yet, and a run is fetching it.
        case awaitAssets
    }

    var now: Double
    var orientation: DeviceOrientation
    var readiness: any ReadinessSource
    /// A prefetch run is in progress: an asset missing now may be there soon.
    var prefetching = false

    /// Timeout first: a message too old to show is dropped whatever else is true
    /// of it. Readiness next, asked again because the cache may have changed
    /// since session start (an eviction, a failed refetch).
    func check(_ entry: PendingMessage) -> Outcome {
        if now > entry.deadline {
            let detail = "waited \(Seconds.format(now - entry.triggeredAt)) s; timeout \(Seconds.format(entry.action.timeout)) s"
            return .discard(.displayTimeout, detail: detail)
        }
        // Eligibility was settled when the trigger fired, so readiness is asked as
        // of then: only what the cache holds may have changed since.
        let verdict = readiness.verdict(for: entry.action, at: entry.triggeredAt)
        var assets: [MessageVerdict.LocalAsset] = []
        switch verdict.status {
        case .discarded where prefetching && verdict.failureKind == .offlineMiss:
            return .awaitAssets
        case .discarded:
            return .discard(verdict.reason ?? .assetDownloadFailed, detail: verdict.detail)
        case .ready:
            assets = verdict.assets
        case .deferred, .expired:
            // Deferred assets are the presenter's to fetch; expiry was ruled out above.
            break
        }
        if !orientation.fits(entry.action.message.orientation) {
            return .discard(.orientationMismatch, detail: "message is \(entry.action.message.orientation.rawValue), device is \(orientation.rawValue)")
        }
        return .showable(assets)
    }
}
