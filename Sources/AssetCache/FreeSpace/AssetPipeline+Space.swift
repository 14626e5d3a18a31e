/// The free-space floor's side of the pipeline (docs/limits.md#free-space):
/// each asset's ``SpaceClaim``, and eviction of what the manifest does not
/// need (``RoomMaker``) before an asset is deferred for want of room.
extension AssetPipeline {
    /// The asset's claim on the room above the floor; nil without a floor.
    /// An urgent asset's claim settles its turn once it has claimed.
    func spaceClaim(for item: AssetPlan.Item, position: Int) -> SpaceClaim? {
        guard let space else { return nil }
        guard item.isUrgent else { return SpaceClaim(floor: space.floor) }
        let order = space.urgentFirst
        return SpaceClaim(floor: space.floor) { order.settle(position) }
    }

    /// Room for `bytes`, after evicting what the manifest does not need if
    /// the floor is short of them: again while another asset took what an
    /// eviction freed, until there is nothing left to evict (each pass that
    /// succeeds removes something, so this ends).
    func claimRoom(_ claim: SpaceClaim, bytes: Int64) async -> Bool {
        while !claim.ensure(bytes) {
            guard await makeRoom(for: claim) else { return false }
        }
        return true
    }

    /// Evicts what the claim's last refusal lacked; whether anything went.
    func makeRoom(for claim: SpaceClaim?) async -> Bool {
        guard let claim, let space, claim.refused > 0 else { return false }
        return await space.roomMaker.makeRoom(claim.refused)
    }

    /// The body checked as each kind; a ZIP whose unpacking found no room is
    /// checked once more if eviction made some. When it still finds none,
    /// the download goes: the asset waits for a later run.
    func validateMakingRoom(
        _ item: AssetPlan.Item, download: FileLocation, result: TransferResult, replacing cached: CachedCopy?, claim: SpaceClaim?
    ) async -> AssetValidator.Checked {
        var checked = await validate(item, download: download, result: result, replacing: cached, claim: claim)
        guard checked.valid == nil, checked.lacksSpace else { return checked }
        if await makeRoom(for: claim) {
            checked = await validate(item, download: download, result: result, replacing: cached, claim: claim)
        }
        if checked.valid == nil, checked.lacksSpace { download.directory.unlink(download.name) }
        return checked
    }
}
