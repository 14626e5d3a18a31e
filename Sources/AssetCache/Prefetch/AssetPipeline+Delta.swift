/// The pipeline's side of a delta refresh (issue 30): when one is tried, and
/// what the report says of it.
extension AssetPipeline {
    /// The report's `delta` and `delta_fallback` for one asset.
    struct DeltaNote {
        var stats: DeltaStats?
        var fallback: DeltaFallback?

        func note(on records: [AssetRecord]) -> [AssetRecord] {
            records.map { record in
                var record = record
                record.delta = stats
                record.deltaFallback = fallback
                return record
            }
        }
    }

    /// A cached ZIP whose server said it takes byte ranges is refreshed by
    /// delta, unless `--no-delta`; ``DeltaOutcome/notTried`` otherwise.
    /// `conditional`: the copy may be revalidated (a 304 keeps it); not when
    /// the manifest's pin refuses it, and it serves only as the delta's base.
    func deltaRefresh(
        _ item: AssetPlan.Item, _ cached: CachedCopy, conditional: Bool, engine: TransferEngine, into download: FileLocation
    ) async -> DeltaOutcome {
        let options = validator.options
        guard options.delta, cached.ref.acceptsRanges == true, cached.ref.passedKinds.contains(.archive),
              item.kinds.contains(.archive)
        else { return .notTried }
        let refresh = DeltaRefresh(
            engine: engine, store: store, cached: cached, conditional: conditional, url: item.url, priority: item.priority, observer: observer,
            pin: validator.integrity[item.url], maxAssetSize: options.transfer.maxAssetSize, maxEntries: options.archive.maxEntries)
        return await refresh.run(into: download)
    }
}
