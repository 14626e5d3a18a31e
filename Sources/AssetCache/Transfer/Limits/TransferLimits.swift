/// How hard the transfer engine may push, and when it gives up (docs/limits.md).
public struct TransferLimits: Sendable, Equatable {
    /// Transfers handed to libcurl at once; the rest wait in the engine's own
    /// priority queue because libcurl's pending queue is first-in first-out.
    public var concurrency = 8
    public var perHost = 6
    public var maxAssetSize: Int64 = 50 * 1024 * 1024
    /// Seconds. For the three timeouts, 0 means none, as it does for curl.
    public var connectTimeout: Double = 10
    /// A transfer is aborted once it has stayed under `stallBytesPerSecond` for
    /// this many seconds (libcurl counts whole seconds: rounded up).
    public var stallTimeout: Double = 15
    public var stallBytesPerSecond = 1024
    /// Seconds, per request.
    public var maxTime: Double = 120
    /// libcurl 7.88 follows redirects without limit unless told otherwise.
    public var maxRedirects = 5
    /// At most `retries + 1` requests per transfer.
    public var retries = 3
    /// After this many timed-out requests to one host, its remaining transfers
    /// in the run fail at once as `timeout`; 0 never gives a host up.
    public var hostTimeoutLimit = 2
    /// Seconds a run waits for a link that is down to come back, its
    /// transfers parked meanwhile (``LinkWatch``); 0 never waits, every
    /// failure then uses up an attempt. 60: a cell handover or a Wi-Fi
    /// re-association takes seconds, a 30 s outage is covered twice over,
    /// and it stays far inside the default --max-run-time (docs/limits.md).
    public var linkWait: Double = 60
    /// Bytes per second for all transfers of an engine together, as a
    /// run's whole budget (``RateLimit``), not per transfer.
    public var limitRate: Int64? = nil
    /// A PEM bundle of CA certificates trusted instead of the system's.
    public var caCertFile: String? = nil

    public init() {}
}
