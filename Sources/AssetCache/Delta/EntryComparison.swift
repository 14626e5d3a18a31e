/// Which bytes of the new ZIP the cached copy already holds (issue 30). An
/// entry is reusable when its name, method, CRC-32, compressed and uncompressed
/// sizes are those of a cached entry, and neither is encrypted (the same
/// plaintext encrypts to other bytes).
///
/// Only the entry's data is reused, and its local header fetched, unless the
/// whole rebuilt file will be checked against a pin or a digest the server
/// sent (``DeltaRefresh/Proof``, issue 37): an identical central record does
/// not make an identical local header — Info-ZIP's `zip` writes each file's
/// access time into the local header only. Where the data starts assumes a
/// local header as long as the cached one's.
///
/// With such a check, the whole span — local header, data, data descriptor, up
/// to the next entry or the central directory — is taken from the cached ZIP
/// when, besides, (b) its new central-directory record is byte for byte the
/// cached one but for the local-header offset (versions, flags, method, time,
/// date, CRC, sizes, name, extra field, comment, disk, attributes: the same
/// entry written by the same tool) and (c) the span is as long in the new file
/// as in the cached one. A one-file change then costs the tail and that entry:
/// one range; a check that fails costs the local headers (``Reuse/dataOnly``).
/// ``ZipRebuild`` checks both kinds of reuse against the rebuilt file's layout.
///
/// Without a pin or a digest the evidence that reused bytes are the new
/// file's is the CRC-32 of each reused entry's data; every other byte is the
/// server's, fetched.
enum EntryComparison {
    /// `newRange` of the new file are the cached file's bytes from `oldOffset`.
    struct Reuse: Equatable {
        /// The new central directory's record.
        var index: Int
        var newRange: Range<Int64>
        var oldOffset: Int64
        /// The entry's whole span (rules b and c), not only its data.
        var includesLocalHeader = false
        /// For a whole span: its cached local header's length, and its data's.
        var headerLength: Int64 = 0
        var dataLength: Int64 = 0

        /// The entry's data alone, its local header and data descriptor left
        /// to be fetched; nil for a whole span of no data.
        var dataOnly: Reuse? {
            guard includesLocalHeader else { return self }
            guard dataLength > 0 else { return nil }
            let start = newRange.lowerBound + headerLength
            return Reuse(index: index, newRange: start..<(start + dataLength), oldOffset: oldOffset + headerLength)
        }
    }

    private typealias Cached = (record: ZipCentralDirectory.Record, span: ZipCentralDirectory.Span, spanEnd: UInt64)

    /// Reusable bytes, sorted and disjoint, all before `newEnd.offset` (the
    /// new central directory): a central directory that places entries on top
    /// of each other or past its own start gets no reuse for them. Whole
    /// spans only when `wholeSpans` (the rebuilt file's bytes will be proven).
    static func reusable(
        old: ZipCentralDirectory, oldEnd: ZipCentralDirectory.End, oldRecords: [ZipCentralDirectory.Record],
        newRecords: [ZipCentralDirectory.Record], newEnd: ZipCentralDirectory.End, wholeSpans: Bool
    ) -> [Reuse] {
        let oldSpanEnds = spanEnds(oldRecords, before: oldEnd.offset)
        var cached: [[UInt8]: Cached] = [:]
        for record in oldRecords where record.flags & 1 == 0 {
            guard let span = try? old.span(of: record, before: oldEnd.offset), span.end <= oldEnd.offset,
                  let spanEnd = oldSpanEnds[record.localHeaderOffset]
            else { continue }
            cached[record.rawName] = (record, span, spanEnd)
        }
        let newSpanEnds = spanEnds(newRecords, before: newEnd.offset)
        var reuses: [Reuse] = []
        var previousEnd: UInt64 = 0
        for record in newRecords.sorted(by: { $0.localHeaderOffset < $1.localHeaderOffset }) {
            guard record.flags & 1 == 0, let match = cached[record.rawName], match.record.method == record.method,
                  match.record.crc == record.crc, match.record.compressedSize == record.compressedSize,
                  match.record.size == record.size, record.localHeaderOffset >= previousEnd
            else { continue }
            if wholeSpans, let reuse = wholeSpan(of: record, match, newSpanEnd: newSpanEnds[record.localHeaderOffset]) {
                reuses.append(reuse)
                previousEnd = UInt64(reuse.newRange.upperBound)
                continue
            }
            let span = match.span
            guard record.compressedSize > 0 else { continue }
            let (start, overflow) = record.localHeaderOffset.addingReportingOverflow(span.dataStart - span.start)
            let (end, past) = start.addingReportingOverflow(record.compressedSize)
            guard !overflow, !past, end <= newEnd.offset, end <= UInt64(Int64.max) else { continue }
            reuses.append(Reuse(index: record.index, newRange: Int64(start)..<Int64(end), oldOffset: Int64(span.dataStart)))
            previousEnd = end
        }
        return reuses
    }

    /// The entry's span in the new file, from the cached one, under rules (b)
    /// and (c); nil when either fails or the cached span does not hold its own
    /// entry's data.
    private static func wholeSpan(of record: ZipCentralDirectory.Record, _ match: Cached, newSpanEnd: UInt64?) -> Reuse? {
        guard let newSpanEnd, record.bytesButOffset == match.record.bytesButOffset, match.span.end <= match.spanEnd,
              newSpanEnd - record.localHeaderOffset == match.spanEnd - match.span.start, newSpanEnd <= UInt64(Int64.max)
        else { return nil }
        return Reuse(
            index: record.index, newRange: Int64(record.localHeaderOffset)..<Int64(newSpanEnd), oldOffset: Int64(match.span.start),
            includesLocalHeader: true, headerLength: Int64(match.span.dataStart - match.span.start),
            dataLength: Int64(match.record.compressedSize))
    }

    /// For each local-header offset before `limit`, where its span ends: the
    /// next entry's offset, or `limit` (the central directory) after the last.
    private static func spanEnds(_ records: [ZipCentralDirectory.Record], before limit: UInt64) -> [UInt64: UInt64] {
        let starts = Set(records.map(\.localHeaderOffset).filter { $0 < limit }).sorted()
        return Dictionary(uniqueKeysWithValues: zip(starts, starts.dropFirst() + [limit]))
    }
}
