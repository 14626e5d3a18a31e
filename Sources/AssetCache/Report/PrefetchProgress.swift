/// Where a run stands, passed to ``PrefetchOptions/progress`` as it moves: once
/// when it starts, each time an asset finishes, and — while bodies are arriving —
/// at most ten times a second as bytes come in.
public struct PrefetchProgress: Sendable, Equatable {
    /// Assets this run fetches (or, offline, looks up), as the report's `assets`
    /// counts them: a URL used as two kinds is two.
    public var totalAssets: Int
    /// Assets finished so far, whatever their outcome.
    public var completedAssets: Int
    /// Finished assets that have no usable copy (outcome `failed`).
    public var failedAssets: Int
    /// Body bytes received from the network so far, counting attempts that were
    /// retried; the report's `downloaded_bytes` counts only the final ones.
    public var receivedBytes: Int64
    /// Time since the run started.
    public var elapsed: Duration
    /// The asset whose completion this update announces; nil for the first update
    /// and for byte counts.
    public var finished: AssetRecord?

    public init(
        totalAssets: Int, completedAssets: Int = 0, failedAssets: Int = 0, receivedBytes: Int64 = 0,
        elapsed: Duration = .zero, finished: AssetRecord? = nil
    ) {
        self.totalAssets = totalAssets
        self.completedAssets = completedAssets
        self.failedAssets = failedAssets
        self.receivedBytes = receivedBytes
        self.elapsed = elapsed
        self.finished = finished
    }

    /// Average bytes per second since the start; 0 before any time has passed.
    public var bytesPerSecond: Double {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return seconds > 0 ? Double(receivedBytes) / seconds : 0
    }
}
