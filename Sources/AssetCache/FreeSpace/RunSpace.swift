/// A run's free-space floor as its pipeline uses it (docs/limits.md#free-space).
struct RunSpace: Sendable {
    let floor: FreeSpaceFloor
    let roomMaker: RoomMaker
    /// Under a near floor, the others claim room once every session-start
    /// and push-click asset has.
    let urgentFirst: UrgentClaims
    /// Room above the floor under which it is near: the most one asset may
    /// write (`--max-asset-size` and `--max-unpacked-size`). Further from it,
    /// assets claim room as their heads and bytes arrive, in whatever order;
    /// nearer, the urgent ones claim first and the others learn their size with
    /// a `HEAD` before their body, as under `--max-download-bytes`.
    let nearMargin: Int64

    /// One `fstatvfs` of the cache directory.
    var isNear: Bool { floor.room < nearMargin }
}

extension Prefetcher {
    /// The run's floor (docs/limits.md#free-space): none offline (nothing is
    /// written but the index), without `minimumFree`, or where the file
    /// system cannot say what is free.
    func runSpace(_ manifest: Manifest, plan: AssetPlan, engine: TransferEngine?, index: RunningIndex, pool: BlockingPool) -> RunSpace? {
        guard engine != nil, let minimum = options.minimumFree else { return nil }
        // The index is rewritten beside itself (about 500 bytes a message,
        // 1 KiB counted), state.json names every asset's ref: both twice, and
        // 64 blocks for the rest.
        let indexBytes = max(Int64(store.directory.status(ReadinessIndex.fileName)?.st_size ?? 0), 1024 * Int64(manifest.actions.count))
        let stateBytes = 128 * Int64(plan.fetch.count)
        guard let floor = FreeSpaceFloor(store: store, minimum: minimum, bookkeeping: 2 * (indexBytes + stateBytes) + 64 * 4096) else { return nil }
        let roomMaker = RoomMaker(
            store: store, pool: pool, logger: options.logger, urls: plan.fetch.map(\.url)) { await index.undecidedObjects() }
        return RunSpace(
            floor: floor, roomMaker: roomMaker, urgentFirst: UrgentClaims(count: plan.fetch.count(where: \.isUrgent)),
            nearMargin: options.transfer.maxAssetSize + options.archive.maxUnpackedSize)
    }
}
