/// What an unpacked ZIP turned into.
package struct ArchiveInfo: Sendable, Equatable {
    /// Entries in the central directory, directories included.
    package var entries: Int
    /// Regular files written or linked.
    package var files: Int
    package var unpackedBytes: Int64
    /// Of those, the files linked from the previous version's tree rather than
    /// written (``PreviousTree``), and their bytes.
    package var linkedFiles = 0
    package var linkedBytes: Int64 = 0
    /// The SHA-256 of each file as it was written, for the tree's digest list
    /// (``TreeDigestList``): what the scrub and `verify` compare the tree against.
    package var digests: [TreeDigestList.File] = []

    package init(entries: Int, files: Int, unpackedBytes: Int64) {
        self.entries = entries
        self.files = files
        self.unpackedBytes = unpackedBytes
    }
}
