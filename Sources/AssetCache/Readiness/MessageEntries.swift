/// A message of the index from its action and verdict: for every asset the copy
/// a lookup finds (its path and object), with the lease and, for a ZIP, the
/// tree's `index.html`. ``IndexProgress`` makes each message a run decides with it.
struct MessageEntries {
    let store: CacheStore
    /// Ten thousand messages may share a few hundred trees: each is looked into once.
    private var entries: [String: String?] = [:]

    init(store: CacheStore) {
        self.store = store
    }

    mutating func message(
        for action: borrowing TriggeredAction, verdict: MessageVerdict, decidedAt: Double,
        copy: (KindedURL) -> (path: String, sha256: String)?
    ) -> ReadinessIndex.Message {
        var assets: [ReadinessIndex.Asset] = []
        action.message.forEachAsset { url, kind in
            var asset = ReadinessIndex.Asset(url: url.redacted, kind: kind)
            if let (path, sha256) = copy(KindedURL(url: url, kind: kind)) {
                asset.path = path
                asset.object = sha256
                asset.lease = store.leasePath(sha256)
                if kind == .archive { asset.entry = entry(of: sha256) }
            }
            assets.append(asset)
        }
        return ReadinessIndex.Message(
            id: action.id, status: verdict.status, reason: verdict.reason?.rawValue, detail: verdict.detail,
            priority: action.priority, triggers: action.conditions, assets: assets, decidedAt: decidedAt)
    }

    private mutating func entry(of sha256: String) -> String? {
        if let known = entries[sha256] { return known }
        let found = store.treeEntry(sha256)
        entries[sha256] = .some(found)
        return found
    }
}
