/// Checks a downloaded ZIP of HTML assets and unpacks it (docs/limits.md). Every
/// entry is checked from the central directory before the first byte is written;
/// the bytes are then streamed, never held whole, and capped at what was declared.
package enum ArchiveUnpacker {

    /// Checks and unpacks the ZIP at `zipPath` into `directory` (created by this
    /// call; must not exist). On failure the caller deletes `directory`, which does
    /// not exist when the checks failed before extraction began. Files equal to
    /// those of `previous` (the tree of the version this ZIP replaces) are linked
    /// from it rather than written; every check runs as for a written one.
    /// `room`, asked once the checks pass and before anything is written,
    /// with the entries' declared bytes and an upper bound of the files and
    /// directories they make: false fails the unpack as a full disk does
    /// (``AssetFailure/lacksSpace``), and nothing is written.
    package static func unpack(
        zipPath: String,
        into directory: FileLocation,
        previous: Directory? = nil,
        limits: ArchiveLimits = .init(),
        room: ((_ bytes: Int64, _ files: Int) -> Bool)? = nil
    ) -> Result<ArchiveInfo, AssetFailure> {
        do throws(AssetFailure) {
            let (archive, plan, declared) = try check(zipPath: zipPath, limits: limits)
            // Each entry a file or a directory, each possibly under a directory
            // of its own, and the tree's root and digest list.
            if let room, !room(declared, 2 * plan.count + 2) {
                var failure = AssetFailure(.storage, "unpacking it takes \(declared) bytes, which the cache's file system does not have above --min-free")
                failure.lacksSpace = true
                throw failure
            }
            let tree = try TreeWriter(creating: directory)
            let extraction = Extraction(archive: archive, tree: tree, previous: previous.map(PreviousTree.init), limits: limits)
            return .success(try extraction.run(plan))
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
    ) throws(AssetFailure) -> (ZipArchive, [ArchiveEntryChecks.Planned], declared: Int64) {
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
        return (archive, plan, checks.declaredBytes)
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
}
