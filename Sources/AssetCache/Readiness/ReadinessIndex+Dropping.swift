extension ReadinessIndex {
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
