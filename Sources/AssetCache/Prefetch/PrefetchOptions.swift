import Logging

/// Everything a prefetch run can be tuned with (docs/cli.md, docs/limits.md).
public struct PrefetchOptions: Sendable {
    public var transfer = TransferLimits()
    public var image = ImageLimits()
    public var archive = ArchiveLimits()
    /// Validation runs beside downloads, in at most this many threads.
    public var validationWorkers = 2
    /// Threads for commits, which wait on the disk: each asset's files made
    /// ready for its batch as it arrives, one batch at a time, and session-start
    /// and push-click assets committed beside them.
    public var commitWorkers = 4
    /// How long a validated asset may wait for others to share its batch's
    /// flushes (a group commit); a batch also closes as soon as every asset still
    /// under way is waiting in it. A second keeps a cold run to a few dozen
    /// flushes however slow the machine, and session-start and push-click assets
    /// never wait for a batch.
    public var commitWindow: Duration = .seconds(1)
    /// A batch closes once it holds this many assets, whatever the window.
    public var commitBatchLimit = 256 {
        didSet { commitBatchLimit = max(1, commitBatchLimit) }
    }
    /// Assets in progress at once (waiting for a transfer slot, downloading,
    /// validating, waiting for their batch); the next starts as one ends. Enough
    /// to keep every transfer and validation worker busy while a full batch
    /// commits, few enough that a manifest of 100,000 assets costs no more memory
    /// than one of 1,000.
    public var pipelineWindow: Int {
        get { _pipelineWindow ?? 2 * (transfer.concurrency + validationWorkers) + commitBatchLimit }
        set { _pipelineWindow = max(1, newValue) }
    }
    private var _pipelineWindow: Int?
    /// How batches are flushed; nil chooses by filesystem (syncfs, or per file on FUSE).
    package var flushMethod: FlushMethod?
    /// Sees every durability step of the run's commits, in order (tests).
    package var durabilityObserver: DurabilityObserver?
    /// How long the other assets wait for the session-start and push-click ones
    /// before starting anyway; zero starts everything at once.
    public var urgentHeadStart: Duration = .seconds(1)
    /// Epoch seconds used for `start_time`/`end_time`; the run's start by default.
    public var now: Double?
    /// `--offline`: readiness from the cache alone, no network.
    public var offline = false
    /// `--max-download-bytes`: body bytes the run may download, claimed in plan
    /// order; what does not fit is deferred to a later run. nil: no limit.
    public var maxDownloadBytes: Int64?
    /// `--metered`: what is known of the link; nil fetches as on an unmetered one.
    public var meteredLink: MeteredLink?
    /// `--min-free`: the free space the run leaves on the cache's file system;
    /// what does not fit is deferred to a later run. nil: no floor (a full
    /// disk still defers rather than discards).
    public var minimumFree: MinimumFree? = .default
    /// `--no-delta` makes it false: a changed ZIP whose server takes range
    /// requests is then downloaded whole instead of fetched by delta (issue 30).
    public var delta = true
    /// `prefetch publish --assets-from DIR`: bodies read from a folder that
    /// mirrors the CDN instead of fetched (``LocalMirror``).
    package var localMirror: LocalMirror?
    /// Told the SHA-256 (hex) of every body that arrived whole, before its
    /// checks: `prefetch publish` pins the bytes it judged, bad ones too, so
    /// that a device judges the same bytes.
    package var bodyArrived: (@Sendable (AssetURL, String) -> Void)?
    /// Bytes of objects and trees to keep; nil uses the budget remembered in the cache.
    public var budget: Int64?
    /// How long fetching the manifest took before the run (its retries
    /// included): the report's `duration_ms` counts it, so that the run's
    /// duration is the time it took, not only the assets'.
    public var manifestFetch: Duration = .zero
    /// How much of the cache the run re-reads before it starts, so that bytes
    /// that rotted at rest are found and fetched again (``ScrubPolicy``).
    public var scrub = ScrubPolicy()
    /// Called with the run's progress: once at the start, as each asset finishes,
    /// and as bytes arrive (at most ten times a second). Calls never overlap and
    /// come from the run's own tasks, so keep the closure quick: hand the value to
    /// your UI rather than drawing in it.
    public var progress: (@Sendable (PrefetchProgress) -> Void)?
    /// Where the run tells what it does: the manifest's warnings, each asset's
    /// outcome (`debug`), retries (`notice`), evictions (`info`). Silent unless you
    /// pass a logger of your own, as libraries using swift-log should be.
    public var logger = Logger(label: "AssetCache", factory: { _ in SwiftLogNoOpLogHandler() })

    public init() {}
}
