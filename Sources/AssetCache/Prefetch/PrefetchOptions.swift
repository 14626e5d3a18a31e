/// Everything a prefetch run can be tuned with (DESIGN §6, §8).
public struct PrefetchOptions: Sendable {
    public var transfer = TransferLimits()
    public var image = ImageLimits()
    public var archive = ArchiveLimits()
    /// Validation runs beside downloads, in at most this many threads.
    public var validationWorkers = 2
    /// Epoch seconds used for `start_time`/`end_time`; the run's start by default.
    public var now: Double?
    /// `--offline`: readiness from the cache alone, no network.
    public var offline = false
    /// Bytes of objects and trees to keep; nil uses the budget remembered in the cache.
    public var budget: Int64?

    public init() {}
}
