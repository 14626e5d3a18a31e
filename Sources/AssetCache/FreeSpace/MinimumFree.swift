/// `--min-free SIZE|PERCENT`: the free space a run leaves on the file system
/// that holds the cache, whatever else it would fetch (docs/limits.md#free-space).
/// Given both, the smaller wins: that is the default, the smaller of 10% of the
/// file system and 500 MiB — where Android's download and job schedulers call
/// storage low, so that a device's other programs keep room for their logs
/// and databases.
public struct MinimumFree: Sendable, Equatable {
    /// Bytes to leave free; nil: only `percent` counts.
    public var bytes: Int64?
    /// Percent of the file system's size to leave free (0–100); nil: only `bytes` counts.
    public var percent: Int?

    public init(bytes: Int64? = nil, percent: Int? = nil) {
        self.bytes = bytes.map { max(0, $0) }
        self.percent = percent.map { min(100, max(0, $0)) }
    }

    /// 10% or 500 MiB, the smaller.
    public static let `default` = MinimumFree(bytes: 500 << 20, percent: 10)

    /// The floor in bytes on a file system of `size` bytes.
    public func floor(onFileSystemOf size: Int64) -> Int64 {
        let share = percent.map { Int64((Double(max(0, size)) * Double($0) / 100).rounded(.up)) }
        switch (bytes, share) {
        case let (bytes?, share?): return min(bytes, share)
        case let (bytes?, nil): return bytes
        case let (nil, share?): return share
        case (nil, nil): return 0
        }
    }
}
