/// What unpacking one ZIP made of its files: the report's per-asset `unpack`
/// (docs/report.md, format 1.4.0). `linkedFiles` of the `files` were linked
/// from the tree of the URL's previous version instead of being written:
/// `linkedBytes` not written to the disk.
public struct UnpackTally: Sendable, Equatable, Encodable {
    public var files: Int
    public var bytes: Int64
    public var linkedFiles: Int
    public var linkedBytes: Int64

    enum CodingKeys: String, CodingKey {
        case files, bytes
        case linkedFiles = "linked_files"
        case linkedBytes = "linked_bytes"
    }

    init(_ info: ArchiveInfo) {
        files = info.files
        bytes = info.unpackedBytes
        linkedFiles = info.linkedFiles
        linkedBytes = info.linkedBytes
    }
}
