import Logging

/// Everything a prefetch run can be tuned with (docs/cli.md, docs/limits.md).
public struct PrefetchOptions: Sendable {
    public var transfer = TransferLimits()
    public var image = ImageLimits()
    public var archive = ArchiveLimits()
    /// Validation runs beside downloads, in at most this many threads.
    public var validationWorkers = 2
    /// Commits (renames and fsyncs) wait on the disk, not the CPU: this many at
    /// once let the filesystem's journal share each commit among them.
    public var commitWorkers = 16
    /// Assets in progress at once (waiting for a transfer slot, downloading,
    /// validating, committing); the next starts as one ends. Enough to keep
    /// every transfer, validation and commit worker busy, few enough that a
    /// manifest of 100,000 assets costs no more memory than one of 100.
    public var pipelineWindow: Int {
        get { _pipelineWindow ?? 2 * (transfer.concurrency + validationWorkers + commitWorkers) }
        set { _pipelineWindow = max(1, newValue) }
    }
    private var _pipelineWindow: Int?
    /// How long the other assets wait for the session-start and push-click ones
    /// before starting anyway; zero starts everything at once.
    public var urgentHeadStart: Duration = .seconds(1)
    /// Epoch seconds used for `start_time`/`end_time`; the run's start by default.
    public var now: Double?
    /// `--offline`: readiness from the cache alone, no network.
    public var offline = false
    /// Bytes of objects and trees to keep; nil uses the budget remembered in the cache.
    public var budget: Int64?
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
