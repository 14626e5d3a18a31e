import CoreMetrics

/// A run's report as metrics, through swift-metrics: the backend the process
/// bootstrapped (or the factory given) receives them, so an app that embeds the
/// library exports them with whatever it already uses. Gauges describe the run
/// just ended; counters add its figures to what the backend already counted.
/// Names follow Prometheus conventions (`_total`, `_bytes`, `_seconds`).
public enum RunMetrics {
    public static let messages = "prefetch_messages"
    public static let assets = "prefetch_assets"
    public static let assetErrors = "prefetch_asset_errors"
    public static let downloadedBytes = "prefetch_downloaded_bytes_total"
    public static let attempts = "prefetch_attempts_total"
    public static let connections = "prefetch_connections_total"
    public static let duration = "prefetch_last_run_duration_seconds"
    public static let linkOutages = "prefetch_last_run_link_outages"
    public static let linkDownSeconds = "prefetch_last_run_link_down_seconds"
    public static let cacheBytes = "prefetch_cache_bytes"
    public static let cacheBudget = "prefetch_cache_budget_bytes"
    public static let scrubReadBytes = "prefetch_scrub_read_bytes_total"
    public static let scrubChecked = "prefetch_scrub_checked_total"
    public static let scrubDamaged = "prefetch_scrub_damaged_total"
    public static let metered = "prefetch_metered_link"
    public static let maxDownloadBytes = "prefetch_max_download_bytes"
    public static let deltaSavedBytes = "prefetch_delta_saved_bytes_total"
    public static let minFreeBytes = "prefetch_min_free_bytes"
    public static let freeBytes = "prefetch_free_bytes"

    /// The help text of each metric recorded here, for backends that print one.
    public static let help: [String: String] = [
        messages: "Messages of the last run by status and, for discarded ones and those deferred by a download limit or the free-space floor, reason.",
        assets: "Assets of the last run by outcome.",
        assetErrors: "Assets of the last run whose last attempt failed, by error kind (failed and stale outcomes).",
        downloadedBytes: "Body bytes downloaded for assets.",
        attempts: "HTTP requests made for assets, retries included.",
        connections: "Connections opened for asset requests (fewer than requests when keep-alive or HTTP/2 shares them).",
        duration: "Duration of the last run's fetching, validating and committing.",
        linkOutages: "Times the link went down in the last run (every host failing at once), its transfers parked instead of failing.",
        linkDownSeconds: "Seconds the link was down in the last run, until it came back or --link-wait ran out.",
        cacheBytes: "Bytes of objects and unpacked trees in the cache after the last run's eviction.",
        cacheBudget: "The cache's disk budget.",
        scrubReadBytes: "Bytes the scrub re-read from the cache to check them.",
        scrubChecked: "Objects and unpacked trees the scrub re-read, by what.",
        scrubDamaged: "Objects and unpacked trees the scrub found damaged (and removed, to fetch again).",
        metered: "1 when the last run's link was metered (--metered), else 0.",
        maxDownloadBytes: "The last run's --max-download-bytes.",
        deltaSavedBytes: "Bytes of changed ZIPs that delta refreshes did not download: their size less what their range requests fetched.",
        minFreeBytes: "The free space the last run left on the cache's file system at least (--min-free), in bytes.",
        freeBytes: "Free space on the cache's file system once the last run had fetched everything, in bytes.",
    ]

    /// Discard reasons a run can decide; the display-time ones belong to the delivery engine.
    static let runReasons: [DiscardReason] = [
        .unsupportedMessageType, .fullWithoutImage, .imageOnlyModalWithoutImage, .assetDownloadFailed, .assetInvalid,
    ]

    /// Why a run defers a message: to display time, or to a later run.
    static let deferReasons: [DiscardReason] = [.notPrefetched, .byteBudget, .metered, .storageLow]

    /// Every label value a run can produce is recorded, zeros included, so that
    /// a series never vanishes from one run to the next.
    public static func record(
        _ report: PrefetchReport, dimensions: [(String, String)] = [], factory: any MetricsFactory = MetricsSystem.factory
    ) {
        var messageCounts: [MessageKey: Int] = [:]
        for status in [MessageStatus.ready, .expired] { messageCounts[MessageKey(status: status, reason: "")] = 0 }
        for reason in runReasons { messageCounts[MessageKey(status: .discarded, reason: reason.rawValue)] = 0 }
        for reason in deferReasons { messageCounts[MessageKey(status: .deferred, reason: reason.rawValue)] = 0 }
        for message in report.messages {
            messageCounts[MessageKey(status: message.verdict.status, reason: message.verdict.reason?.rawValue ?? ""), default: 0] += 1
        }
        for (key, count) in messageCounts.sorted(by: { ($0.key.status.rawValue, $0.key.reason) < ($1.key.status.rawValue, $1.key.reason) }) {
            let labels = dimensions + [("status", key.status.rawValue), ("reason", key.reason)]
            Gauge(label: messages, dimensions: labels, factory: factory).record(count)
        }
        for outcome in AssetOutcome.allCases {
            let count = report.assets.count { $0.outcome == outcome }
            Gauge(label: assets, dimensions: dimensions + [("outcome", outcome.rawValue)], factory: factory).record(count)
        }
        for kind in AssetErrorKind.allCases {
            let count = report.assets.count { $0.failure?.kind == kind }
            Gauge(label: assetErrors, dimensions: dimensions + [("kind", kind.rawValue)], factory: factory).record(count)
        }
        let totals = report.totals
        Counter(label: downloadedBytes, dimensions: dimensions, factory: factory).increment(by: totals.downloadedBytes)
        Counter(label: attempts, dimensions: dimensions, factory: factory).increment(by: report.requests)
        Counter(label: connections, dimensions: dimensions, factory: factory).increment(by: totals.connections)
        Counter(label: deltaSavedBytes, dimensions: dimensions, factory: factory).increment(by: report.deltaSavedBytes)
        Gauge(label: duration, dimensions: dimensions, factory: factory).record(Double(report.durationMs) / 1000)
        let link = report.link ?? LinkOutages()
        Gauge(label: linkOutages, dimensions: dimensions, factory: factory).record(link.outages)
        Gauge(label: linkDownSeconds, dimensions: dimensions, factory: factory).record(link.downSeconds)
        if let scrub = report.scrub {
            Counter(label: scrubReadBytes, dimensions: dimensions, factory: factory).increment(by: scrub.bytesRead)
            Counter(label: scrubChecked, dimensions: dimensions + [("what", "object")], factory: factory).increment(by: scrub.objects)
            Counter(label: scrubChecked, dimensions: dimensions + [("what", "tree")], factory: factory).increment(by: scrub.trees)
            Counter(label: scrubDamaged, dimensions: dimensions, factory: factory).increment(by: scrub.damaged.count)
        }
        if let link = report.meteredLink {
            Gauge(label: metered, dimensions: dimensions, factory: factory).record(link.isMetered ? 1 : 0)
        }
        if let budget = report.byteBudget {
            Gauge(label: maxDownloadBytes, dimensions: dimensions, factory: factory).record(budget.maxDownloadBytes)
        }
        if let space = report.freeSpace {
            Gauge(label: minFreeBytes, dimensions: dimensions, factory: factory).record(space.minFreeBytes)
            Gauge(label: freeBytes, dimensions: dimensions, factory: factory).record(space.freeBytes)
        }
        if let collection = report.garbageCollection {
            recordCache(bytes: collection.bytesAfter, budget: collection.budget, dimensions: dimensions, factory: factory)
        }
    }

    /// Also for a run that ended before its report, from the cache as it is.
    public static func recordCache(
        bytes: Int64, budget: Int64, dimensions: [(String, String)] = [], factory: any MetricsFactory = MetricsSystem.factory
    ) {
        Gauge(label: cacheBytes, dimensions: dimensions, factory: factory).record(bytes)
        Gauge(label: cacheBudget, dimensions: dimensions, factory: factory).record(budget)
    }

    private struct MessageKey: Hashable {
        var status: MessageStatus
        var reason: String
    }
}

extension PrefetchReport {
    /// Requests made for the run's assets. A URL is fetched once whatever kinds
    /// it is used as, and its records (one per kind, side by side) each show
    /// that URL's requests: they are counted once.
    var requests: Int {
        var total = 0
        var previous: AssetURL?
        for asset in assets where asset.url != previous {
            total += asset.attempts
            previous = asset.url
        }
        return total
    }

    /// What the run's delta refreshes saved: each rebuilt ZIP's size less the
    /// bytes its requests fetched, counted once per URL.
    var deltaSavedBytes: Int64 {
        var total: Int64 = 0
        var previous: AssetURL?
        for asset in assets where asset.url != previous {
            previous = asset.url
            guard let delta = asset.delta, asset.deltaFallback == nil, let bytes = asset.bytes else { continue }
            total += max(0, bytes - delta.fetchedBytes)
        }
        return total
    }
}
