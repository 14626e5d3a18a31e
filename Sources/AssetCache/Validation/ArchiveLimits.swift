/// What a ZIP of HTML assets may unpack to (docs/limits.md). Checked from the central
/// directory before anything is written, and again against the bytes written.
public struct ArchiveLimits: Sendable, Equatable {
    public var maxEntries = 10_000
    public var maxUnpackedSize: Int64 = 256 * 1024 * 1024
    /// Unpacked bytes per compressed byte, for entries larger than `ratioMinEntrySize`:
    /// small files compress well legitimately, large ones that do are bombs.
    public var maxRatio: Int64 = 200
    public var ratioMinEntrySize: Int64 = 1024 * 1024

    public init() {}
}
