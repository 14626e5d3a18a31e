/// Which URLs a run fetches, in which order: deduplicated, session-start and
/// push-click messages first, then by priority, then manifest order (docs/report.md).
struct AssetPlan {
    struct Item {
        var url: AssetURL
        var kind: AssetKind
        /// Higher starts first.
        var priority: Int
        /// Needed by a session-start or push-click message: these come first.
        var isUrgent = false
    }

    /// URLs to fetch, in order.
    var fetch: [Item] = []
    /// URLs no message prefetches (`prefetch: false`, `cache=false`), reported as `skipped`.
    var skipped: [(url: AssetURL, kind: AssetKind)] = []

    init(manifest: Manifest, now: Double) {
        // Sort keys computed once per action, not once per comparison.
        let keys = manifest.actions.map { (isUrgent: $0.isUrgent, priority: $0.priority) }
        let ordered = manifest.actions.indices.sorted { a, b in
            if keys[a].isUrgent != keys[b].isUrgent { return keys[a].isUrgent }
            if keys[a].priority != keys[b].priority { return keys[a].priority > keys[b].priority }
            return a < b
        }

        var seen: Set<AssetURL> = []
        var skippedSeen: Set<AssetURL> = []
        // By index: copying every action (a dozen references each) was a third of this.
        let actions = manifest.actions
        for index in ordered where !actions[index].isExpired(at: now) && actions[index].heldBack == nil {
            let prefetch = actions[index].prefetch
            actions[index].message.forEachAsset { url, kind in
                guard prefetch, !url.forbidsCaching else {
                    if skippedSeen.insert(url).inserted { skipped.append((url, kind)) }
                    return
                }
                if seen.insert(url).inserted {
                    fetch.append(Item(url: url, kind: kind, priority: 0, isUrgent: keys[index].isUrgent))
                }
            }
        }
        for index in fetch.indices { fetch[index].priority = fetch.count - index }
        skipped.removeAll { seen.contains($0.url) }
    }
}
