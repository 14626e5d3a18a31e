/// Which URLs a run fetches, in which order: deduplicated, session-start and
/// push-click messages first, then by priority, then manifest order (docs/report.md).
struct AssetPlan {
    struct Item {
        var url: AssetURL
        /// Every kind the run's messages use the URL as: it is fetched once, and
        /// its bytes checked as each of them, whichever message came first.
        var kinds: AssetKinds
        /// Higher starts first.
        var priority: Int
        /// Needed by a session-start or push-click message: these come first.
        var isUrgent = false

        /// The same failure for every kind: nothing of the URL got that far.
        func failed(_ failure: AssetFailure, attempts: Int, finishedMs: Int) -> [AssetRecord] {
            kinds.map { .failed(url, $0, failure, attempts: attempts, finishedMs: finishedMs) }
        }
    }

    /// URLs to fetch, in order.
    var fetch: [Item] = []
    /// URLs, each with a kind, that no message prefetches as that kind
    /// (`prefetch: false`, `cache=false`), reported as `skipped`.
    var skipped: [(url: AssetURL, kind: AssetKind)] = []
    /// The records the fetched items make, one per URL and kind: the report's
    /// `assets` before the skipped ones.
    var fetchedRecords: Int { fetch.reduce(0) { $0 + $1.kinds.count } }

    init(manifest: Manifest, now: Double) {
        // Sort keys computed once per action, not once per comparison.
        let keys = manifest.actions.map { (isUrgent: $0.isUrgent, priority: $0.priority) }
        let ordered = manifest.actions.indices.sorted { a, b in
            if keys[a].isUrgent != keys[b].isUrgent { return keys[a].isUrgent }
            if keys[a].priority != keys[b].priority { return keys[a].priority > keys[b].priority }
            return a < b
        }

        // The position in `fetch` of each URL: a later message may add a kind.
        var seen: [AssetURL: Int] = [:]
        var skippedSeen: Set<KindedURL> = []
        // By index: copying every action (a dozen references each) was a third of this.
        let actions = manifest.actions
        for index in ordered where !actions[index].isExpired(at: now) && actions[index].heldBack == nil {
            let prefetch = actions[index].prefetch
            actions[index].message.forEachAsset { url, kind in
                guard prefetch, !url.forbidsCaching else {
                    if skippedSeen.insert(KindedURL(url: url, kind: kind)).inserted { skipped.append((url, kind)) }
                    return
                }
                if let position = seen[url] {
                    fetch[position].kinds.insert(kind)
                } else {
                    seen[url] = fetch.count
                    fetch.append(Item(url: url, kinds: AssetKinds(kind), priority: 0, isUrgent: keys[index].isUrgent))
                }
            }
        }
        for index in fetch.indices { fetch[index].priority = fetch.count - index }
        skipped.removeAll { entry in seen[entry.url].map { fetch[$0].kinds.contains(entry.kind) } ?? false }
    }
}

/// A URL as one kind: what a verdict is about.
struct KindedURL: Hashable {
    var url: AssetURL
    var kind: AssetKind
}
