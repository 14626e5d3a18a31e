/// The download limits' side of a transfer (docs/limits.md#download-limits):
/// its response head and body checked against ``DownloadAllowance``, and a
/// ranged request's head against ``TransferRequest/Ranged``.
extension Transfer {
    /// On a 2xx head: whether the body its Content-Length announces fits the
    /// download limits (``DownloadAllowance/admitHead(length:prefix:)``), then
    /// the free-space floor (``admitSpace(length:)``). Without a
    /// Content-Length the bytes are counted as they arrive.
    func admitBody() -> Bool {
        allowance?.headKnown?()
        guard allowance != nil || request.space != nil, let field = head.headers["content-length"],
              let length = Int64(ResponseHead.trimmed(field)), length >= 0 else {
            request.space?.headKnown?()
            return true
        }
        // A 206 continues the file: the asset is the prefix and the rest.
        let prefix = head.status == 206 ? range?.offset ?? 0 : 0
        if let refusal = allowance?.admitHead(length: length, prefix: prefix) { return postpone(refusal) }
        return admitSpace(length: length)
    }

    /// On a 2xx head of a ranged request (``TransferRequest/Ranged``).
    func admitRanged() -> Bool {
        guard let refusal = request.ranged?.refusal(status: head.status, headers: head.headers, url: effectiveURL) else { return true }
        callbackFailure = refusal
        return false
    }

    /// Every body byte is charged to the allowance; the bytes in hand have
    /// crossed the network all the same.
    func chargeAllowance(_ received: Int64) -> Bool {
        guard let refusal = allowance?.charge(received) else { return true }
        return postpone(refusal)
    }

    /// Stops the request; the asset is deferred to a later run, its partial body kept.
    func postpone(_ refusal: DownloadAllowance.Refusal) -> Bool {
        deferral = refusal.reason
        let limit = refusal.reason == .metered ? "--metered-max-asset-bytes on a metered link" : "--max-download-bytes"
        callbackFailure = AssetFailure(.network, "\(request.url) left for a later run by \(limit): \(refusal.why)")
        return false
    }
}
