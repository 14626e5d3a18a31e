import Crypto

/// The second half of ``ArchiveUnpacker``: the checked entries streamed out of
/// the ZIP into the new tree, each either written or, when it is byte for byte
/// a file of the previous version's tree, linked to that file.
struct Extraction {
    private static let chunkSize = 64 * 1024

    let archive: ZipArchive
    let tree: TreeWriter
    let previous: PreviousTree?
    let limits: ArchiveLimits

    func run(_ plan: [ArchiveEntryChecks.Planned]) throws(AssetFailure) -> ArchiveInfo {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        var info = ArchiveInfo(entries: plan.count, files: 0, unpackedBytes: 0)
        for item in plan {
            if item.entry.isDirectory {
                try tree.makeDirectory(item.components)
                continue
            }
            let (size, sha256, linked) = try place(item, buffer: buffer, total: info.unpackedBytes)
            info.files += 1
            info.unpackedBytes += size
            if linked {
                info.linkedFiles += 1
                info.linkedBytes += size
            }
            info.digests.append(TreeDigestList.File(path: item.components.joined(separator: "/"), sha256: sha256))
        }
        return info
    }

    /// Links the entry when the previous tree has it byte for byte, else writes
    /// it. A candidate that differs costs a second decompression of the entry,
    /// never a byte written twice; an empty file has nothing to save.
    private func place(
        _ item: ArchiveEntryChecks.Planned, buffer: UnsafeMutableRawBufferPointer, total: Int64
    ) throws(AssetFailure) -> (Int64, String, linked: Bool) {
        if item.entry.size > 0, let file = previous?.file(item.components, size: item.entry.size),
           let (size, sha256) = try stream(item, buffer: buffer, total: total, into: { chunk in file.matches(chunk) }),
           file.isWhole, try tree.link(item.components, to: file) {
            return (size, sha256, true)
        }
        let output = try tree.createFile(item.components)
        guard let (size, sha256) = try stream(item, buffer: buffer, total: total, into: { chunk throws(AssetFailure) in
            try output.write(chunk)
            return true
        }) else {
            preconditionFailure("a write that fails throws")
        }
        return (size, sha256, false)
    }

    /// Streams one entry's bytes into `sink`, reading on to the end even after
    /// the declared size so that libzip's CRC and size checks run (libzip 1.7
    /// checks only at EOF): its size and the SHA-256 of its bytes, hashed on the
    /// way rather than re-read; nil when `sink` stopped it (a compared file
    /// differed). Every limit applies whatever the sink.
    private func stream(
        _ item: ArchiveEntryChecks.Planned,
        buffer: UnsafeMutableRawBufferPointer,
        total: Int64,
        into sink: (UnsafeRawBufferPointer) throws(AssetFailure) -> Bool
    ) throws(AssetFailure) -> (Int64, String)? {
        let entry = item.entry
        let reader = try archive.open(entry)
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
            guard try sink(chunk) else { return nil }
            hasher.update(bufferPointer: chunk)
            written += Int64(count)
        }
        guard written == entry.size else {
            throw AssetFailure(.invalidArchive, "entry \(entry.quotedName) has \(written) bytes, not the \(entry.size) declared")
        }
        return (written, CacheStore.hex(hasher.finalize()))
    }
}
