/// The pipeline's side of a delta refresh (issue 30): when one is tried.
extension AssetPipeline {
    /// The delta refresh of a cached ZIP whose server said it takes byte
    /// ranges, unless `--no-delta`; nil when none applies (the body is then
    /// fetched whole). Its base is the copy to revalidate (the tail is asked
    /// conditionally: a 304 keeps the copy), else one the manifest's pin
    /// refuses, which may still hold most of the pinned ZIP's bytes. Never
    /// under a download limit, which admits and charges the body of one
    /// request: the delta's range requests carry no allowance.
    func deltaRefresh(
        _ item: AssetPlan.Item, basis: FetchBasis, allowance: DownloadAllowance?, engine: TransferEngine
    ) -> DeltaRefresh? {
        let options = validator.options
        guard allowance == nil, let base = basis.revalidating ?? basis.deltaBase,
              options.delta, base.ref.acceptsRanges == true, base.ref.passedKinds.contains(.archive), item.kinds.contains(.archive)
        else { return nil }
        return DeltaRefresh(
            engine: engine, store: store, cached: base, conditional: basis.revalidating != nil, url: item.url, priority: item.priority,
            observer: observer, pin: validator.integrity[item.url], maxAssetSize: options.transfer.maxAssetSize,
            maxEntries: options.archive.maxEntries)
    }
}
