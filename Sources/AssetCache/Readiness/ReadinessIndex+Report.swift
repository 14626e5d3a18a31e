extension ReadinessIndex {
    /// The index of a run or a plan: each message's verdict from `report`, and
    /// for every asset of it the copy the report found (by URL and kind).
    package init(report: PrefetchReport, manifest: Manifest, store: CacheStore, by command: String, at now: Double) {
        var records: [KindedURL: Int] = [:]
        records.reserveCapacity(report.assets.count)
        for index in report.assets.indices where report.assets[index].path != nil {
            records[KindedURL(url: report.assets[index].url, kind: report.assets[index].kind)] = index
        }
        var entries = MessageEntries(store: store)
        var messages: [Message] = []
        messages.reserveCapacity(manifest.actions.count)
        for (action, verdict) in zip(manifest.actions, report.messages) {
            messages.append(entries.message(for: action, verdict: verdict.verdict, decidedAt: now) { key in
                guard let index = records[key], let path = report.assets[index].path, let sha256 = report.assets[index].sha256 else {
                    return nil
                }
                return (path, sha256)
            })
        }
        self.init(computedAt: now, computedBy: command, cacheDirectory: store.root, manifest: manifest.indexed, messages: messages)
    }

    /// The same index after files it names were removed (by `gc` or `verify
    /// --repair`): a message that lost one is no longer ready, for the reason
    /// `plan` would now give, and the asset no longer names the files.
    /// `exists` says whether an asset's files are still there.
    package func dropping(by command: String, at now: Double, exists: (Asset) -> Bool) -> ReadinessIndex {
        var index = self
        index.computedAt = now
        index.computedBy = command
        for position in index.messages.indices {
            var lost: String?
            for asset in index.messages[position].assets.indices {
                let current = index.messages[position].assets[asset]
                guard current.path != nil, !exists(current) else { continue }
                index.messages[position].assets[asset] = Asset(url: current.url, kind: current.kind)
                if lost == nil { lost = current.url }
            }
            if let lost, index.messages[position].status == .ready {
                index.messages[position].status = .discarded
                index.messages[position].reason = DiscardReason.assetDownloadFailed.rawValue
                index.messages[position].detail = AssetFailure(.offlineMiss, "\(lost) is not in the cache").description
                index.messages[position].decidedAt = now
            }
        }
        return index
    }
}

extension ReadinessIndex.Asset {
    init(url: String, kind: AssetKind) {
        self.init(url: url, kind: kind, path: nil, entry: nil, object: nil, lease: nil)
    }
}

/// A message of the index from its action and verdict: for every asset the copy
/// a lookup finds (its path and object), with the lease and, for a ZIP, the
/// tree's `index.html`. The run's end and ``RunningIndex`` make them alike.
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
