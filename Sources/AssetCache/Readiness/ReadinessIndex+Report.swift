extension ReadinessIndex {
    /// The index of a run or a plan: each message's verdict from `report`, and
    /// for every asset of it the copy the report found (by URL and kind).
    package init(report: PrefetchReport, manifest: Manifest, store: CacheStore, by command: String, at now: Double) {
        var records: [KindedURL: Int] = [:]
        records.reserveCapacity(report.assets.count)
        for index in report.assets.indices where report.assets[index].path != nil {
            records[KindedURL(url: report.assets[index].url, kind: report.assets[index].kind)] = index
        }
        // Ten thousand messages may share a few hundred trees: each is looked into once.
        var entries: [String: String?] = [:]
        var messages: [Message] = []
        messages.reserveCapacity(manifest.actions.count)
        for (action, verdict) in zip(manifest.actions, report.messages) {
            var assets: [Asset] = []
            action.message.forEachAsset { url, kind in
                var asset = Asset(url: url.redacted, kind: kind)
                if let index = records[KindedURL(url: url, kind: kind)], let path = report.assets[index].path,
                   let sha256 = report.assets[index].sha256 {
                    asset.path = path
                    asset.object = sha256
                    asset.lease = store.leasePath(sha256)
                    if kind == .archive {
                        if let known = entries[sha256] {
                            asset.entry = known
                        } else {
                            asset.entry = store.treeEntry(sha256)
                            entries[sha256] = .some(asset.entry)
                        }
                    }
                }
                assets.append(asset)
            }
            messages.append(Message(
                id: action.id, status: verdict.verdict.status, reason: verdict.verdict.reason?.rawValue, detail: verdict.verdict.detail,
                priority: action.priority, triggers: action.conditions, assets: assets))
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
