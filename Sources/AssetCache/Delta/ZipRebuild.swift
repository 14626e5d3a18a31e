#if canImport(Glibc)
import Glibc
#endif

/// The new ZIP's bytes written in order into a file in `tmp/` from where each
/// piece lies (the cached copy, the tail, the range answers) and hashed as
/// they go, a buffer at a time: the file is never held in memory. Then read
/// back as a ZIP: it must be the archive the tail described, each reused
/// entry where it was assumed to lie.
enum ZipRebuild {
    /// `range` of the new file is `source`'s bytes from `offset`.
    struct Piece {
        var range: Range<Int64>
        var source: Int32
        var offset: Int64
    }

    private static let bufferSize = 64 * 1024

    /// `gap` of the new file from `source`, the cached copy, as the reused
    /// ranges (sorted, disjoint) that cover it; nil when they leave a hole.
    static func pieces(of gap: Range<Int64>, from reused: [EntryComparison.Reuse], source: Int32) -> [Piece]? {
        var pieces: [Piece] = []
        var position = gap.lowerBound
        // The first reuse that ends after the gap starts, by bisection: a bundle may have thousands.
        var next = reused.count, low = 0
        while low < next {
            let middle = (low + next) / 2
            if reused[middle].newRange.upperBound > position { next = middle } else { low = middle + 1 }
        }
        while position < gap.upperBound {
            guard next < reused.count, reused[next].newRange.contains(position) else { return nil }
            let reuse = reused[next]
            let end = min(reuse.newRange.upperBound, gap.upperBound)
            pieces.append(Piece(range: position..<end, source: source, offset: reuse.oldOffset + position - reuse.newRange.lowerBound))
            position = end
            next += 1
        }
        return pieces
    }

    /// The SHA-256 of the file written at `location`, and its digest in
    /// `also` (a served digest's algorithm) when that is another; nil when the
    /// pieces do not tile `0..<fileSize` or a read or write failed.
    static func write(
        _ pieces: [Piece], fileSize: Int64, to location: FileLocation, also: ServedDigest.Algorithm? = nil
    ) -> (sha256: [UInt8], own: [UInt8]?)? {
        guard let fd = try? location.directory.createFile(location.name, mode: 0o600) else { return nil }
        defer { close(fd) }
        var hasher = ServedDigest.Hasher(also: also)
        var position: Int64 = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bufferSize, alignment: 1)
        defer { buffer.deallocate() }
        for piece in pieces.sorted(by: { $0.range.lowerBound < $1.range.lowerBound }) {
            guard piece.range.lowerBound == position else { return nil }
            var done: Int64 = 0
            let count = piece.range.upperBound - piece.range.lowerBound
            while done < count {
                let want = Int(min(Int64(bufferSize), count - done))
                let got = pread(piece.source, buffer.baseAddress, want, off_t(piece.offset + done))
                if got < 0, errno == EINTR { continue }
                guard got > 0 else { return nil }
                let chunk = UnsafeRawBufferPointer(rebasing: buffer[..<got])
                guard LibC.writeAll(fd, chunk) else { return nil }
                hasher.update(chunk)
                done += Int64(got)
            }
            position = piece.range.upperBound
        }
        guard position == fileSize else { return nil }
        return hasher.finalize()
    }

    /// The rebuilt file is the archive of the tail's central directory: where
    /// only an entry's data was reused, its fetched local header is as long as
    /// assumed; where its whole span was, the cached local header is this
    /// record's (name, method, CRC-32, sizes) and its data ends within the
    /// span. A local header that disagrees would fail validation's
    /// `ZIP_CHECKCONS`; caught here, it is a fallback to one full download.
    static func matches(
        _ location: FileLocation, end: ZipCentralDirectory.End, records: [ZipCentralDirectory.Record],
        reused: [EntryComparison.Reuse]
    ) -> Bool {
        location.withStablePath { path -> Bool in
            guard let rebuilt = try? ZipCentralDirectory(path: path), let rebuiltEnd = try? rebuilt.end(), rebuiltEnd == end,
                  let rebuiltRecords = try? rebuilt.records(rebuiltEnd), rebuiltRecords == records
            else { return false }
            return reused.allSatisfy { reuse in
                let record = records[reuse.index]
                guard let span = try? rebuilt.span(of: record, before: end.offset) else { return false }
                guard reuse.includesLocalHeader else { return span.dataStart == UInt64(reuse.newRange.lowerBound) }
                return span.start == UInt64(reuse.newRange.lowerBound) && span.end <= UInt64(reuse.newRange.upperBound)
                    && rebuilt.localHeaderAgrees(with: record)
            }
        } ?? false
    }
}
