/// The discard rule: given what the cache holds, is a message ready, and if not,
/// why (docs/report.md). Pure, so that `run`, `plan` and the delivery engine at display
/// time all decide the same way.
public enum Readiness {
    /// The checks, in the order docs/report.md gives: unsupported type, expired,
    /// held back (an expired manifest, a missing pin), structurally unshowable, deferred, asset failures,
    /// deferred by the run's limits (byte budget, metered link), ready.
    /// `state` says what is known of a URL used as a kind: the same URL may be an
    /// image to one message and a ZIP to another, and each is judged by the
    /// checks of the kind it uses.
    public static func verdict(
        for action: borrowing TriggeredAction,
        at now: Double,
        asset state: (AssetURL, AssetKind) -> AssetState?
    ) -> MessageVerdict {
        let message = action.message
        if case .unsupported(let type) = message.type {
            return .discarded(.unsupportedMessageType, detail: "message type '\(type)' is not supported")
        }
        if action.isExpired(at: now) {
            return MessageVerdict(status: .expired, assets: [])
        }
        if let heldBack = action.heldBack { return heldBack }
        if message.isControl {
            return MessageVerdict(status: .ready, assets: [])
        }
        if message.imageURL == nil {
            if message.type == .full { return .discarded(.fullWithoutImage) }
            if message.type == .modal && message.imageStyle == .graphic { return .discarded(.imageOnlyModalWithoutImage) }
        }

        var local: [MessageVerdict.LocalAsset] = []
        var deferred = false
        var failure: (url: AssetURL, failure: AssetFailure)?
        var limited: DiscardReason?
        message.forEachAsset { url, kind in
            if !action.prefetch || url.forbidsCaching {
                deferred = true
                return
            }
            switch state(url, kind) {
            case .available(let path)?:
                local.append(.init(url: url, kind: kind, path: path))
            case .skipped?:
                deferred = true
            case .deferred(let reason)?:
                if limited == nil { limited = reason }
            case .failed(let assetFailure)?:
                if failure == nil { failure = (url, assetFailure) }
            case nil:
                if failure == nil { failure = (url, AssetFailure(.offlineMiss, "\(url) is not in the cache")) }
            }
        }
        if deferred { return MessageVerdict(status: .deferred, reason: .notPrefetched, assets: []) }
        if let failure {
            let reason: DiscardReason = failure.failure.kind.isInvalidContent ? .assetInvalid : .assetDownloadFailed
            return .discarded(reason, detail: failure.failure.description, url: failure.url, kind: failure.failure.kind)
        }
        // After failures: a message that cannot be shown for one asset is not
        // waiting on another's later run.
        if let limited { return MessageVerdict(status: .deferred, reason: limited, assets: []) }
        return MessageVerdict(status: .ready, assets: local)
    }
}
