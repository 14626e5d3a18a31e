import CZip

/// Streams one entry's uncompressed bytes out of a `ZipArchive`.
final class ZipEntryReader {
    private let file: OpaquePointer
    private let entry: ArchiveEntry

    init(file: OpaquePointer, entry: ArchiveEntry) {
        self.file = file
        self.entry = entry
    }

    deinit { zip_fclose(file) }

    /// Fills the front of `buffer`; 0 at the end of the entry, which is where a
    /// wrong CRC or size surfaces.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(AssetFailure) -> Int {
        let count = zip_fread(file, buffer.baseAddress, UInt64(buffer.count))
        guard count >= 0 else {
            let error = zip_file_get_error(file)
            switch zip_error_code_zip(error) {
            case ZIP_ER_CRC:
                throw AssetFailure(.invalidArchive, "CRC error in entry \(entry.quotedName)")
            case ZIP_ER_INCONS:
                throw AssetFailure(.invalidArchive, "entry \(entry.quotedName) does not match its declared size")
            default:
                throw AssetFailure(.invalidArchive, "cannot read entry \(entry.quotedName): \(String(cString: zip_error_strerror(error)))")
            }
        }
        return Int(count)
    }
}
