/// The free-space floor's side of a transfer (docs/limits.md#free-space): a
/// body's bytes claimed from ``SpaceClaim`` before they are written, so that a
/// transfer stops (deferred, `storage_low`, its partial body kept for resume)
/// before the file system crosses the floor rather than after.
extension Transfer {
    /// On a 2xx head announcing `length` more body bytes: room for them, the
    /// object's last block and its ref. Once they are granted, the next asset
    /// may claim (a refused one settles when its asset ends, after the
    /// pipeline tried to make room for it).
    func admitSpace(length: Int64) -> Bool {
        guard let space = request.space else { return true }
        if space.ensure(space.floor.onDisk(length, files: 2)) {
            space.headKnown?()
            return true
        }
        return postponeForSpace(space, why: "its Content-Length is \(length) bytes")
    }

    /// Before `bytes` of a 2xx body are written: past what was claimed, more is asked.
    func claimSpace(_ bytes: Int64) -> Bool {
        guard let space = request.space, !space.write(bytes) else { return true }
        return postponeForSpace(space, why: "its body passed \(bytes) bytes more than there was room for")
    }

    private func postponeForSpace(_ space: SpaceClaim, why: String) -> Bool {
        deferral = .storageLow
        callbackFailure = AssetFailure(
            .storage, "\(request.url) left for a later run by --min-free: \(why), and the cache's file system keeps \(space.floor.floor) bytes free")
        return false
    }
}
