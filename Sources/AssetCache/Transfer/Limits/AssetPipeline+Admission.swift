/// What a download limit (`--max-download-bytes`, a metered link) needs of an
/// asset before the pipeline admits it (its admit stage): the allowance
/// its transfer may use, and its size before any of its body is on the wire.
extension AssetPipeline {
    /// What a download limit allows this asset: nil when none applies to it.
    func downloadAllowance(for item: AssetPlan.Item, position: Int) -> DownloadAllowance? {
        let cap = meteredLink.flatMap { $0.isMetered && !item.isUrgent ? $0.maxAssetBytes : nil }
        guard budget != nil || cap != nil else { return nil }
        var headKnown: (@Sendable () -> Void)?
        if let admission { headKnown = { admission.settle(position) } }
        return DownloadAllowance(budget: budget, maxAssetBytes: cap, headKnown: headKnown)
    }

    /// The size of an asset a download limit applies to, learnt before any of
    /// its body is on the wire. A body refused when its response head arrives
    /// has already crossed the link by then, a round trip's worth of it (on an
    /// LTE link about 300 kB per refused asset, more than many assets): that is
    /// exactly what `--max-download-bytes` and a metered link exist to save. So
    /// an asset whose size the cache does not know is asked with `HEAD` first,
    /// and admitted by the Content-Length it gives. Nil when no answer names one
    /// (no Content-Length, a failure): the GET's head and its body are checked
    /// as they arrive, as before.
    /// The free-space floor asks the same near the floor (``RunSpace/isNear``).
    func sizeBeforeBody(of item: AssetPlan.Item, cached: CachedCopy?, budget: ByteBudget?, engine: TransferEngine) async -> Int64? {
        if let cached { return cached.ref.bytes }
        // Nothing fits any more: the asset is deferred without a request.
        if let budget, budget.left <= 0 { return nil }
        var request = TransferRequest(url: item.url.string, location: store.temporaryFile("head"), priority: item.priority)
        request.headOnly = true
        let result = await engine.fetch(request)
        let location = request.location
        if location.directory.status(location.name) != nil { location.directory.unlink(location.name) }
        guard result.failure == nil, (200..<300).contains(result.status),
              let field = result.headers["content-length"], let length = Int64(ResponseHead.trimmed(field)), length >= 0
        else { return nil }
        return length
    }
}
