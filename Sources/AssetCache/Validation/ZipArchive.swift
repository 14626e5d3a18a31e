import CZip

/// A libzip archive opened read-only. Closed (discarded: nothing is ever written)
/// when the last reference goes.
final class ZipArchive {
    private let handle: OpaquePointer

    /// Opens with `ZIP_CHECKCONS`, which compares every local header with its
    /// central-directory entry and refuses duplicate names.
    init(path: String) throws(AssetFailure) {
        var code: Int32 = 0
        guard let handle = zip_open(path, ZIP_CHECKCONS | ZIP_RDONLY, &code) else {
            throw ZipArchive.openFailure(path: path, code: code)
        }
        self.handle = handle
    }

    deinit { zip_discard(handle) }

    var entryCount: Int64 { zip_get_num_entries(handle, 0) }

    /// The entry libzip knows at `record.index`, which must agree with the central
    /// directory as ``ZipCentralDirectory`` read it: two readers that disagree
    /// about an archive (several end records, say) are how checks get bypassed.
    func entry(matching record: ZipCentralDirectory.Record) throws(AssetFailure) -> ArchiveEntry {
        let index = UInt64(record.index)
        var stat = zip_stat_t()
        zip_stat_init(&stat)
        guard zip_stat_index(handle, index, 0, &stat) == 0, let name = stat.name else {
            throw AssetFailure(.invalidArchive, "cannot read entry #\(index): \(errorMessage)")
        }
        let needed = UInt64(ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE | ZIP_STAT_COMP_METHOD | ZIP_STAT_ENCRYPTION_METHOD)
        guard stat.valid & needed == needed else {
            throw AssetFailure(.invalidArchive, "entry #\(index) lacks its size, method or encryption fields")
        }
        let rawName = zip_get_name(handle, index, ZIP_FL_ENC_RAW).map(ZipArchive.bytes(of:)) ?? []
        guard rawName == record.rawName, stat.size == record.size, stat.comp_size == record.compressedSize,
              // WinZip AES stores method 99 and the real one in its extra field, which libzip reports.
              stat.comp_method == record.method || record.method == 99
        else {
            throw AssetFailure(
                .invalidArchive,
                "libzip and the central directory disagree about entry #\(index) (\(ArchiveEntry.quoted(rawName: record.rawName)))"
            )
        }
        var system: UInt8 = 0
        var attributes: UInt32 = 0
        guard zip_file_get_external_attributes(handle, index, 0, &system, &attributes) == 0 else {
            throw AssetFailure(.invalidArchive, "cannot read the attributes of entry #\(index): \(errorMessage)")
        }
        return ArchiveEntry(
            index: index,
            name: String(cString: name),
            rawName: record.rawName,
            size: Int64(clamping: stat.size),
            compressedSize: Int64(clamping: stat.comp_size),
            compressionMethod: Int32(stat.comp_method),
            encryptionMethod: stat.encryption_method,
            unixMode: UInt32(system) == ZIP_OPSYS_UNIX ? attributes >> 16 : nil
        )
    }

    /// A reader of the entry's uncompressed bytes; libzip checks the CRC when it
    /// reaches the end.
    func open(_ entry: ArchiveEntry) throws(AssetFailure) -> ZipEntryReader {
        guard let file = zip_fopen_index(handle, entry.index, 0) else {
            throw AssetFailure(.invalidArchive, "cannot read entry \(entry.quotedName): \(errorMessage)")
        }
        return ZipEntryReader(file: file, entry: entry)
    }

    /// Without decoding, which would repair the invalid UTF-8 the path rules must see.
    private static func bytes(of cString: UnsafePointer<CChar>) -> [UInt8] {
        var bytes: [UInt8] = []
        var cursor = UnsafeRawPointer(cString)
        while case let byte = cursor.load(as: UInt8.self), byte != 0 {
            bytes.append(byte)
            cursor += 1
        }
        return bytes
    }

    private var errorMessage: String { String(cString: zip_strerror(handle)) }

    private static func openFailure(path: String, code: Int32) -> AssetFailure {
        var error = zip_error_t()
        zip_error_init_with_code(&error, code)
        let message = String(cString: zip_error_strerror(&error))
        zip_error_fini(&error)
        switch code {
        case ZIP_ER_EXISTS:
            // CHECKCONS refuses duplicate names without saying which: look without it.
            let duplicate = duplicateName(path: path).map { "entry '\($0)' appears twice" }
            return AssetFailure(.unsafeArchive, duplicate ?? "the archive has two entries with the same name")
        case ZIP_ER_INCONS:
            return AssetFailure(.invalidArchive, "local headers disagree with the central directory: \(message)")
        case ZIP_ER_NOZIP:
            let head = FileHead.read(path: path, count: ContentDescription.sampleLength)
            let description = (try? head.get()).map { " (\(ContentDescription.describe($0)))" } ?? ""
            return AssetFailure(.invalidArchive, "not a ZIP archive: \(message)\(description)")
        case ZIP_ER_NOENT, ZIP_ER_OPEN, ZIP_ER_READ, ZIP_ER_SEEK, ZIP_ER_MEMORY:
            return AssetFailure(.storage, "cannot read '\(path)': \(message)")
        default:
            return AssetFailure(.invalidArchive, "unreadable ZIP archive: \(message)")
        }
    }

    private static func duplicateName(path: String) -> String? {
        guard let handle = zip_open(path, ZIP_RDONLY, nil) else { return nil }
        defer { zip_discard(handle) }
        var seen: Set<String> = []
        for index in 0..<UInt64(max(0, zip_get_num_entries(handle, 0))) {
            guard let name = zip_get_name(handle, index, 0).map({ String(cString: $0) }) else { continue }
            if !seen.insert(name).inserted { return name }
        }
        return nil
    }
}
