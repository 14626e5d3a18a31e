/// The result of a run, encoded as the JSON report of docs/report.md.
public struct PrefetchReport: Sendable, Encodable {
    /// The report format's version, bumped when keys change meaning.
    public static let formatVersion = "1.6.0"

    public var cacheDirectory: String
    public var durationMs: Int
    public var messages: [MessageReport]
    public var assets: [AssetRecord]
    /// The eviction pass that ended the run, if one ran.
    public var garbageCollection: GarbageCollection?
    /// What the run's scrub re-read and found; nil for `plan` and when turned off.
    public var scrub: ScrubResult?
    /// Where a manifest from a URL came from; nil for a local file.
    public var manifestOrigin: ManifestOrigin?
    /// What the manifest holds that loads but will not work as written (and
    /// the actions of other types it skipped): the report's `warnings`, left
    /// out when there are none (format 1.5.0).
    public var warnings: [ManifestWarning]
    /// Every body byte received in the run, failed and partial attempts and error
    /// pages included: what the run cost the network, not what it stored.
    public var downloadedBytes: Int64 = 0
    /// Connections opened for the assets' requests; fewer than requests when
    /// keep-alive or HTTP/2 let them share.
    public var connections = 0
    /// `--max-download-bytes`; nil without one, and offline.
    public var byteBudget: ByteBudgetUse?
    /// What the run knew of its link (`--metered`); nil offline and for `plan`.
    public var meteredLink: MeteredLink?
    /// The link's outages the transfers rode through or gave up on; nil for
    /// `plan` and `--offline`, where nothing was sent.
    public var link: LinkOutages?
    /// `--min-free` and the file system's free space; nil for `plan`,
    /// `--offline`, and where the file system cannot say.
    public var freeSpace: FreeSpaceUse?

    /// Verdicts for every message, in manifest order, from what the run found:
    /// `fetched` holds the records of `plan.fetch`, in its order (an item's kinds
    /// in theirs); they become
    /// `assets`, followed by the skipped ones, without being copied.
    init(manifest: Manifest, plan: AssetPlan, fetched: consuming [AssetRecord], now: Double, cacheDirectory: String, durationMs: Int) {
        var assets = fetched
        for (url, kind) in plan.skipped {
            assets.append(AssetRecord(url: url, kind: kind, outcome: .skipped, attempts: 0, finishedMs: 0))
        }
        // By URL and kind: a URL used as an image by one message and as a ZIP by
        // another has a record for each, and each message reads its own kind's.
        var position: [KindedURL: Int] = [:]
        position.reserveCapacity(assets.count)
        for index in assets.indices { position[KindedURL(url: assets[index].url, kind: assets[index].kind)] = index }
        // Ten thousand messages may share a few hundred URLs: each URL's state is
        // made once, and each message looks its URLs up once.
        let states = assets.map(\.state)
        messages = manifest.actions.map { action in
            Self.judge(action, at: now) { url, kind in
                position[KindedURL(url: url, kind: kind)].map { (states[$0], assets[$0].finishedMs) }
            }
        }
        self.assets = assets
        self.cacheDirectory = cacheDirectory
        self.durationMs = durationMs
        warnings = manifest.warnings
    }

    /// A ready message had every one of its URLs looked up, so the latest of them is its readyMs.
    private static func judge(
        _ action: borrowing TriggeredAction, at now: Double, asset: (AssetURL, AssetKind) -> (state: AssetState, finishedMs: Int)?
    ) -> MessageReport {
        var latest = 0
        let verdict = Readiness.verdict(for: action, at: now) { url, kind in
            guard let found = asset(url, kind) else { return nil }
            latest = max(latest, found.finishedMs)
            return found.state
        }
        return MessageReport(id: action.id, verdict: verdict, readyMs: verdict.status == .ready ? latest : nil)
    }

    /// The same from records looked up by URL and kind; those of `plan.fetch` without one are left out.
    init(manifest: Manifest, plan: AssetPlan, records: [KindedURL: AssetRecord], now: Double, cacheDirectory: String, durationMs: Int) {
        let fetched = plan.fetch.flatMap { item in item.kinds.compactMap { records[KindedURL(url: item.url, kind: $0)] } }
        self.init(manifest: manifest, plan: plan, fetched: fetched, now: now, cacheDirectory: cacheDirectory, durationMs: durationMs)
    }

    /// One pass by index: `count(where:)` copied every message (its strings and
    /// arrays retained and released) once per status.
    public var totals: Totals {
        var totals = Totals(
            messages: messages.count, ready: 0, discarded: 0, deferred: 0, expired: 0, assets: assets.count,
            downloadedBytes: downloadedBytes, connections: connections)
        for index in messages.indices {
            switch messages[index].verdict.status {
            case .ready: totals.ready += 1
            case .discarded: totals.discarded += 1
            case .deferred: totals.deferred += 1
            case .expired: totals.expired += 1
            }
        }
        return totals
    }

    public struct Totals: Sendable, Encodable, Equatable {
        public var messages, ready, discarded, deferred, expired, assets: Int
        public var downloadedBytes: Int64
        public var connections: Int

        enum CodingKeys: String, CodingKey {
            case messages, ready, discarded, deferred, expired, assets, connections
            case downloadedBytes = "downloaded_bytes"
        }
    }

    enum CodingKeys: String, CodingKey {
        case version, messages, assets, totals, link, scrub, budget, metered, warnings
        case freeSpace = "free_space"
        case garbageCollection = "eviction"
        case manifestOrigin = "manifest"
        case cacheDirectory = "cache_dir"
        case durationMs = "duration_ms"
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.formatVersion, forKey: .version)
        try container.encode(cacheDirectory, forKey: .cacheDirectory)
        try container.encode(durationMs, forKey: .durationMs)
        try container.encode(messages, forKey: .messages)
        try container.encode(assets, forKey: .assets)
        try container.encode(totals, forKey: .totals)
        try container.encodeIfPresent(link, forKey: .link)
        try container.encodeIfPresent(manifestOrigin, forKey: .manifestOrigin)
        if !warnings.isEmpty { try container.encode(warnings, forKey: .warnings) }
        try container.encodeIfPresent(scrub, forKey: .scrub)
        try container.encodeIfPresent(garbageCollection, forKey: .garbageCollection)
        try container.encodeIfPresent(budgetBody, forKey: .budget)
        try container.encodeIfPresent(meteredBody, forKey: .metered)
        try container.encodeIfPresent(freeSpaceBody, forKey: .freeSpace)
    }
}

/// An entry of the report's `warnings`; `suggestion` only when there is one.
extension ManifestWarning: Encodable {
    enum CodingKeys: String, CodingKey { case kind, path, message, suggestion }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind.rawValue, forKey: .kind)
        try container.encode(path, forKey: .path)
        try container.encode(message, forKey: .message)
        try container.encodeIfPresent(suggestion, forKey: .suggestion)
    }
}

/// The report's `eviction`: what the run's closing eviction removed, and kept for leases.
extension GarbageCollection: Encodable {
    enum CodingKeys: String, CodingKey {
        case evictedRefs = "evicted_refs"
        case removedObjects = "removed_objects"
        case removedTrees = "removed_trees"
        case keptLeased = "kept_leased"
        case keptLeasedBytes = "kept_leased_bytes"
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(evictedRefs, forKey: .evictedRefs)
        try container.encode(removedObjects, forKey: .removedObjects)
        try container.encode(removedTrees, forKey: .removedTrees)
        try container.encode(keptLeased, forKey: .keptLeased)
        try container.encode(keptLeasedBytes, forKey: .keptLeasedBytes)
    }
}

extension LinkOutages: Encodable {
    /// Milliseconds are all a reader can use of it.
    var roundedDownSeconds: Double { (downSeconds * 1000).rounded() / 1000 }

    enum CodingKeys: String, CodingKey {
        case outages
        case downSeconds = "down_seconds"
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(roundedDownSeconds, forKey: .downSeconds)
        try container.encode(outages, forKey: .outages)
    }
}

extension ManifestOrigin: Encodable {
    enum CodingKeys: String, CodingKey {
        case url, source
        case fetchedAt = "fetched_at"
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(url, forKey: .url)
        try container.encode(source.rawValue, forKey: .source)
        try container.encode(fetchedAt, forKey: .fetchedAt)
    }
}

extension ScrubResult: Encodable {
    enum CodingKeys: String, CodingKey {
        case objects, trees, damaged
        case bytesRead = "bytes_read"
        case cacheBytes = "cache_bytes"
    }

    private struct Damage: Encodable {
        var kind, path, problem: String
        /// false when a display app leases it: left in place.
        var removed: Bool
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(objects, forKey: .objects)
        try container.encode(trees, forKey: .trees)
        try container.encode(bytesRead, forKey: .bytesRead)
        try container.encode(cacheBytes, forKey: .cacheBytes)
        try container.encode(damaged.map { Damage(kind: $0.kind.rawValue, path: $0.path, problem: $0.problem, removed: !$0.leased) }, forKey: .damaged)
    }
}

public struct MessageReport: Sendable, Encodable {
    public var id: String
    public var verdict: MessageVerdict
    /// Milliseconds from the start of the run until the message was ready.
    public var readyMs: Int?

    enum CodingKeys: String, CodingKey {
        case id, status, reason, detail, assets
        case readyMs = "ready_ms"
    }

    private struct LocalAsset: Encodable {
        var url: String
        var kind: AssetKind
        var path: String
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(verdict.status, forKey: .status)
        try container.encodeIfPresent(verdict.reason, forKey: .reason)
        try container.encodeIfPresent(verdict.detail, forKey: .detail)
        try container.encodeIfPresent(readyMs, forKey: .readyMs)
        try container.encode(verdict.assets.map { LocalAsset(url: $0.url.redacted, kind: $0.kind, path: $0.path) }, forKey: .assets)
    }
}

extension AssetRecord: Encodable {
    enum CodingKeys: String, CodingKey {
        case url, kind, outcome, sha256, bytes, path, attempts, reason, unpack, delta, error
        case deltaFallback = "delta_fallback"
        case deltaEvidence = "delta_evidence"
    }

    private struct DeltaBody: Encodable {
        var fetched_bytes: Int64
        var reused_bytes: Int64
        var requests: Int
    }

    private struct ErrorBody: Encodable {
        var kind: AssetErrorKind
        var message: String
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(url.redacted, forKey: .url)
        try container.encode(kind, forKey: .kind)
        try container.encode(outcome, forKey: .outcome)
        try container.encodeIfPresent(sha256, forKey: .sha256)
        try container.encodeIfPresent(bytes, forKey: .bytes)
        try container.encodeIfPresent(path, forKey: .path)
        try container.encode(attempts, forKey: .attempts)
        try container.encodeIfPresent(deferral, forKey: .reason)
        try container.encodeIfPresent(unpack, forKey: .unpack)
        try container.encodeIfPresent(
            delta.map { DeltaBody(fetched_bytes: $0.fetchedBytes, reused_bytes: $0.reusedBytes, requests: $0.requests) }, forKey: .delta)
        try container.encodeIfPresent(deltaEvidence?.rawValue, forKey: .deltaEvidence)
        try container.encodeIfPresent(deltaFallback?.rawValue, forKey: .deltaFallback)
        if let failure {
            try container.encode(ErrorBody(kind: failure.kind, message: failure.message), forKey: .error)
        } else {
            try container.encodeNil(forKey: .error)
        }
    }
}
