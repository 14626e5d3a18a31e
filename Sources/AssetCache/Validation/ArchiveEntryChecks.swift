import CZip

/// Every rule an archive must pass before anything is written: on the layout the
/// central directory describes (entry count, NUL bytes in names, overlapping
/// entries), per entry (encryption, method, path, file type, ratio) and across
/// entries (duplicates, file/directory clashes, declared total).
struct ArchiveEntryChecks {
    /// A checked entry: what to create and how many bytes to expect.
    struct Planned {
        var entry: ArchiveEntry
        var components: [String]
    }

    private enum Node { case file, implicitDirectory, explicitDirectory }

    let limits: ArchiveLimits
    private(set) var declaredBytes: Int64 = 0
    private var nodes: [[String]: Node] = [:]

    init(limits: ArchiveLimits) {
        self.limits = limits
    }

    func checkEntryCount(_ count: Int64) throws(AssetFailure) {
        guard count <= Int64(limits.maxEntries) else {
            throw AssetFailure(.archiveLimits, "archive has \(count) entries, over the limit of \(limits.maxEntries)")
        }
    }

    /// Names are checked whole here, before libzip (whose C strings stop at the
    /// first NUL) sees them: "a.html\0../../x" must not pass as "a.html".
    func checkNames(_ records: [ZipCentralDirectory.Record]) throws(AssetFailure) {
        if let record = records.first(where: { $0.rawName.contains(0) }) {
            throw AssetFailure(.unsafeArchive, "entry \(ArchiveEntry.quoted(rawName: record.rawName)) has a NUL byte in its name")
        }
    }

    /// No two entries may share bytes (docs/limits.md): a "full" overlap points several
    /// central-directory records at one local header, a "quoted" one makes each
    /// entry's data contain the next entry's local header, so that a small file
    /// inflates its bytes many times over (Fifield, "A better zip bomb"). Each
    /// span runs from the local header to the end of the data; the central
    /// directory starts where the entries must end.
    func checkOverlaps(
        _ spans: [ZipCentralDirectory.Span], records: [ZipCentralDirectory.Record], centralDirectoryOffset: UInt64
    ) throws(AssetFailure) {
        func name(_ span: ZipCentralDirectory.Span) -> String { ArchiveEntry.quoted(rawName: records[span.index].rawName) }
        let sorted = spans.sorted { ($0.start, $0.index) < ($1.start, $1.index) }
        for (first, second) in zip(sorted, sorted.dropFirst()) {
            if first.start == second.start {
                throw AssetFailure(
                    .archiveLimits,
                    "entries \(name(first)) and \(name(second)) share one local header at offset \(first.start) (full overlap)"
                )
            }
            if first.end > second.start {
                throw AssetFailure(
                    .archiveLimits,
                    "entry \(name(first)) (bytes \(first.start)..<\(first.end)) overlaps entry \(name(second)) at offset \(second.start) (quoted overlap)"
                )
            }
        }
        if let last = sorted.last, last.end > centralDirectoryOffset {
            throw AssetFailure(
                .archiveLimits,
                "entry \(name(last)) (bytes \(last.start)..<\(last.end)) overlaps the central directory at offset \(centralDirectoryOffset)"
            )
        }
    }

    mutating func admit(_ entry: ArchiveEntry) throws(AssetFailure) -> Planned {
        let name = entry.quotedName
        guard Int32(entry.encryptionMethod) == ZIP_EM_NONE else {
            throw AssetFailure(.invalidArchive, "entry \(name) is encrypted")
        }
        guard entry.compressionMethod == ZIP_CM_STORE || entry.compressionMethod == ZIP_CM_DEFLATE else {
            throw AssetFailure(
                .invalidArchive,
                "entry \(name) uses compression method \(entry.compressionMethod); only stored (0) and deflate (8) are supported"
            )
        }
        let components = try ArchiveEntryPath.components(of: entry)
        try checkFileType(entry)
        if entry.isDirectory, entry.size > 0 {
            throw AssetFailure(.invalidArchive, "directory entry \(name) has \(entry.size) bytes of data")
        }
        try checkRatio(entry)
        try place(entry, components)

        let (total, overflow) = declaredBytes.addingReportingOverflow(entry.size)
        guard !overflow, total <= limits.maxUnpackedSize else {
            throw AssetFailure(
                .archiveLimits,
                "archive declares more than \(limits.maxUnpackedSize) bytes unpacked (at entry \(name))"
            )
        }
        declaredBytes = total
        return Planned(entry: entry, components: components)
    }

    private func checkFileType(_ entry: ArchiveEntry) throws(AssetFailure) {
        guard let mode = entry.unixMode else { return }
        // ZIP stores UNIX st_mode bits as defined by POSIX, whatever the host's headers say.
        switch mode & 0o170000 {
        case 0, 0o100000, 0o040000:
            return  // no type recorded, regular file, directory
        case 0o120000:
            throw AssetFailure(.unsafeArchive, "entry \(entry.quotedName) is a symlink")
        case 0o020000, 0o060000:
            throw AssetFailure(.unsafeArchive, "entry \(entry.quotedName) is a device")
        case 0o010000:
            throw AssetFailure(.unsafeArchive, "entry \(entry.quotedName) is a FIFO")
        case 0o140000:
            throw AssetFailure(.unsafeArchive, "entry \(entry.quotedName) is a socket")
        default:
            throw AssetFailure(.unsafeArchive, "entry \(entry.quotedName) has unknown file type 0o\(String(mode >> 12, radix: 8))")
        }
    }

    private func checkRatio(_ entry: ArchiveEntry) throws(AssetFailure) {
        guard entry.size > limits.ratioMinEntrySize else { return }
        let (allowed, overflow) = entry.compressedSize.multipliedReportingOverflow(by: limits.maxRatio)
        guard overflow || entry.size <= allowed else {
            let ratio = entry.size / max(entry.compressedSize, 1)
            throw AssetFailure(
                .archiveLimits,
                "entry \(entry.quotedName) expands \(ratio):1 (\(entry.size) bytes from \(entry.compressedSize)), over the limit of \(limits.maxRatio):1"
            )
        }
    }

    /// Records the entry's path, refusing exact duplicates and a name used both as
    /// a file and as a directory (explicitly or as some file's parent).
    private mutating func place(_ entry: ArchiveEntry, _ components: [String]) throws(AssetFailure) {
        let name = entry.quotedName
        for depth in 1..<components.count {
            let parent = Array(components[..<depth])
            switch nodes[parent] {
            case .file:
                throw AssetFailure(
                    .unsafeArchive,
                    "entry \(name) needs '\(parent.joined(separator: "/"))' as a directory, but it is a file"
                )
            case nil:
                nodes[parent] = .implicitDirectory
            case .implicitDirectory, .explicitDirectory:
                break
            }
        }
        switch (nodes[components], entry.isDirectory) {
        case (nil, false):
            nodes[components] = .file
        case (nil, true), (.implicitDirectory, true):
            nodes[components] = .explicitDirectory
        case (.file, false), (.explicitDirectory, true):
            throw AssetFailure(.unsafeArchive, "entry \(name) appears twice")
        case (.file, true), (.implicitDirectory, false), (.explicitDirectory, false):
            throw AssetFailure(.unsafeArchive, "entry \(name) is both a file and a directory")
        }
    }
}
