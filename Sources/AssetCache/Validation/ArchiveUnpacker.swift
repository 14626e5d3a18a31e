import Crypto

/// Checks a downloaded ZIP of HTML assets and unpacks it (docs/limits.md). Every
/// entry is checked from the central directory before the first byte is written;
/// the bytes are then streamed, never held whole, and capped at what was declared.
package enum ArchiveUnpacker {
    private static let chunkSize = 64 * 1024

    /// Checks and unpacks the ZIP at `zipPath` into `directory` (created by this
    /// call; must not exist). On failure the caller deletes `directory`, which does
    /// not exist when the checks failed before extraction began.
    package static func unpack(
        zipPath: String,
        into directory: FileLocation,
        limits: ArchiveLimits = .init()
    ) -> Result<ArchiveInfo, AssetFailure> {
        do throws(AssetFailure) {
            let (archive, plan) = try check(zipPath: zipPath, limits: limits)
            let tree = try TreeWriter(creating: directory)
            return .success(try extract(plan, from: archive, into: tree, limits: limits))
        } catch {
            return .failure(error)
        }
    }

    /// `directory` by its path, for tools and tests.
    package static func unpack(
        zipPath: String, into directory: String, limits: ArchiveLimits = .init()
    ) -> Result<ArchiveInfo, AssetFailure> {
        unpack(zipPath: zipPath, into: FileLocation(path: directory), limits: limits)
    }

    /// The central directory is read twice: by ``ZipCentralDirectory`` for the
    /// layout (count, names, overlaps), before libzip is given the file, then by
    /// libzip, whose entries must agree with it.
    private static func check(
        zipPath: String, limits: ArchiveLimits
    ) throws(AssetFailure) -> (ZipArchive, [ArchiveEntryChecks.Planned]) {
        var checks = ArchiveEntryChecks(limits: limits)
        let directory = try layout(zipPath) { () throws(ZipCentralDirectory.Failure) in try ZipCentralDirectory(path: zipPath) }
        let end = try layout(zipPath) { () throws(ZipCentralDirectory.Failure) in try directory.end() }
        try checks.checkEntryCount(Int64(clamping: end.entryCount))
        let records = try layout(zipPath) { () throws(ZipCentralDirectory.Failure) in try directory.records(end) }
        try checks.checkNames(records)
        let spans = try layout(zipPath) { () throws(ZipCentralDirectory.Failure) in
            try records.map { record throws(ZipCentralDirectory.Failure) in try directory.span(of: record, before: end.offset) }
        }
        try checks.checkOverlaps(spans, records: records, centralDirectoryOffset: end.offset)

        let archive = try ZipArchive(path: zipPath)
        guard archive.entryCount == Int64(records.count) else {
            throw AssetFailure(
                .invalidArchive,
                "libzip finds \(archive.entryCount) entries where the central directory lists \(records.count)"
            )
        }
        var plan: [ArchiveEntryChecks.Planned] = []
        plan.reserveCapacity(records.count)
        for record in records {
            plan.append(try checks.admit(try archive.entry(matching: record)))
        }
        return (archive, plan)
    }

    private static func layout<T>(
        _ zipPath: String, _ read: () throws(ZipCentralDirectory.Failure) -> T
    ) throws(AssetFailure) -> T {
        do {
            return try read()
        } catch {
            switch error {
            case .notZip:
                let head = (try? FileHead.read(path: zipPath, count: 4).get()) ?? []
                if head == [0x50, 0x4B, 0x03, 0x04] {
                    throw AssetFailure(.invalidArchive, "truncated ZIP archive: no end of central directory record")
                }
                // libzip's refusal also says what the bytes look like.
                _ = try ZipArchive(path: zipPath)
                throw AssetFailure(.invalidArchive, "not a ZIP archive: no end of central directory record")
            case .malformed(let reason):
                throw AssetFailure(.invalidArchive, reason)
            case .unreadable(let reason):
                throw AssetFailure(.storage, reason)
            }
        }
    }

    private static func extract(
        _ plan: [ArchiveEntryChecks.Planned],
        from archive: ZipArchive,
        into tree: TreeWriter,
        limits: ArchiveLimits
    ) throws(AssetFailure) -> ArchiveInfo {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        var info = ArchiveInfo(entries: plan.count, files: 0, unpackedBytes: 0)
        for item in plan {
            if item.entry.isDirectory {
                try tree.makeDirectory(item.components)
                continue
            }
            let (written, sha256) = try copy(item, from: archive, into: tree, buffer: buffer, total: info.unpackedBytes, limits: limits)
            info.files += 1
            info.unpackedBytes += written
            info.digests.append(TreeDigestList.File(path: item.components.joined(separator: "/"), sha256: sha256))
        }
        return info
    }

    /// Copies one entry, reading on to the end even after the declared size so that
    /// libzip's CRC and size checks run (libzip 1.7 checks only at EOF); its size
    /// and the SHA-256 of the bytes written, hashed on the way rather than re-read.
    private static func copy(
        _ item: ArchiveEntryChecks.Planned,
        from archive: ZipArchive,
        into tree: TreeWriter,
        buffer: UnsafeMutableRawBufferPointer,
        total: Int64,
        limits: ArchiveLimits
    ) throws(AssetFailure) -> (Int64, String) {
        let entry = item.entry
        let reader = try archive.open(entry)
        let output = try tree.createFile(item.components)
        var hasher = SHA256()
        var written: Int64 = 0
        while true {
            let count = try reader.read(into: buffer)
            if count == 0 { break }
            guard written + Int64(count) <= entry.size else {
                throw AssetFailure(.archiveLimits, "entry \(entry.quotedName) is larger than declared (\(entry.size) bytes)")
            }
            guard total + written + Int64(count) <= limits.maxUnpackedSize else {
                throw AssetFailure(.archiveLimits, "archive unpacks to more than \(limits.maxUnpackedSize) bytes")
            }
            let chunk = UnsafeRawBufferPointer(rebasing: buffer[..<count])
            try output.write(chunk)
            hasher.update(bufferPointer: chunk)
            written += Int64(count)
        }
        guard written == entry.size else {
            throw AssetFailure(.invalidArchive, "entry \(entry.quotedName) has \(written) bytes, not the \(entry.size) declared")
        }
        return (written, CacheStore.hex(hasher.finalize()))
    }
}
