/// What an unpacked ZIP turned into.
public struct ArchiveInfo: Sendable, Equatable {
    /// Entries in the central directory, directories included.
    public var entries: Int
    /// Regular files written.
    public var files: Int
    public var unpackedBytes: Int64

    public init(entries: Int, files: Int, unpackedBytes: Int64) {
        self.entries = entries
        self.files = files
        self.unpackedBytes = unpackedBytes
    }
}
