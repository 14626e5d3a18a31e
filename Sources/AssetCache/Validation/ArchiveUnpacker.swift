/// Checks a downloaded ZIP of HTML assets and unpacks it (DESIGN §3, §8). Every
/// entry is checked from the central directory before the first byte is written;
/// the bytes are then streamed, never held whole, and capped at what was declared.
package enum ArchiveUnpacker {
    private static let chunkSize = 64 * 1024

    /// Checks and unpacks the ZIP at `zipPath` into `directory` (created by this
    /// call; must not exist). On failure the caller deletes `directory`, which does
    /// not exist when the checks failed before extraction began.
    package static func unpack(
        zipPath: String,
        into directory: String,
        limits: ArchiveLimits = .init()
    ) -> Result<ArchiveInfo, AssetFailure> {
        do throws(AssetFailure) {
            let archive = try ZipArchive(path: zipPath)
            let plan = try check(archive, limits: limits)
            // Overlapping entries (DESIGN §10) need offsets libzip 1.7 does not give:
            // a central-directory reader will add its verdict to the checks above.
            let tree = try TreeWriter(creating: directory)
            return .success(try extract(plan, from: archive, into: tree, limits: limits))
        } catch {
            return .failure(error)
        }
    }

    private static func check(_ archive: ZipArchive, limits: ArchiveLimits) throws(AssetFailure) -> [ArchiveEntryChecks.Planned] {
        var checks = ArchiveEntryChecks(limits: limits)
        let count = archive.entryCount
        guard count >= 0 else { throw AssetFailure(.invalidArchive, "cannot count the entries of the archive") }
        try checks.checkEntryCount(count)
        var plan: [ArchiveEntryChecks.Planned] = []
        plan.reserveCapacity(Int(count))
        for index in 0..<UInt64(count) {
            plan.append(try checks.admit(try archive.entry(at: index)))
        }
        return plan
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
            let written = try copy(item, from: archive, into: tree, buffer: buffer, total: info.unpackedBytes, limits: limits)
            info.files += 1
            info.unpackedBytes += written
        }
        return info
    }

    /// Copies one entry, reading on to the end even after the declared size so that
    /// libzip's CRC and size checks run (libzip 1.7 checks only at EOF).
    private static func copy(
        _ item: ArchiveEntryChecks.Planned,
        from archive: ZipArchive,
        into tree: TreeWriter,
        buffer: UnsafeMutableRawBufferPointer,
        total: Int64,
        limits: ArchiveLimits
    ) throws(AssetFailure) -> Int64 {
        let entry = item.entry
        let reader = try archive.open(entry)
        let output = try tree.createFile(item.components)
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
            try output.write(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            written += Int64(count)
        }
        guard written == entry.size else {
            throw AssetFailure(.invalidArchive, "entry \(entry.quotedName) has \(written) bytes, not the \(entry.size) declared")
        }
        return written
    }
}
