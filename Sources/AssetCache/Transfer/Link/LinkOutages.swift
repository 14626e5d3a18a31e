/// How long a run's link was down, as its transfers saw it (``LinkWatch``):
/// the report's `link` and the metrics' `prefetch_link_*`.
public struct LinkOutages: Sendable, Equatable {
    /// Times the link went down.
    public var outages = 0
    /// Seconds it stayed down in all, until it came back or the wait ran out.
    public var downSeconds = 0.0

    public init(outages: Int = 0, downSeconds: Double = 0) {
        self.outages = outages
        self.downSeconds = downSeconds
    }
}
