/// Which entries of the new ZIP the cached copy already holds (issue 30): an
/// entry is reusable when its name, method, CRC-32, compressed and uncompressed
/// sizes are those of a cached entry, and neither is encrypted (the same
/// plaintext encrypts to other bytes). Only the entry's data is reused: its
/// local header is fetched, as the new file's may differ in a date or an
/// extra field. Where the data starts in the new file assumes a local header
/// as long as the cached one's; ``ZipRebuild`` checks that against the rebuilt file.
enum EntryComparison {
    /// `newRange` of the new file are the cached file's bytes from `oldOffset`.
    struct Reuse: Equatable {
        /// The new central directory's record.
        var index: Int
        var newRange: Range<Int64>
        var oldOffset: Int64
    }

    /// Reusable data, sorted and disjoint, all before `newEnd.offset` (the
    /// new central directory): a central directory that places entries on top
    /// of each other or past its own start gets no reuse for them.
    static func reusable(
        old: ZipCentralDirectory, oldEnd: ZipCentralDirectory.End, oldRecords: [ZipCentralDirectory.Record],
        newRecords: [ZipCentralDirectory.Record], newEnd: ZipCentralDirectory.End
    ) -> [Reuse] {
        var cached: [[UInt8]: (record: ZipCentralDirectory.Record, span: ZipCentralDirectory.Span)] = [:]
        for record in oldRecords where record.flags & 1 == 0 && record.compressedSize > 0 {
            guard let span = try? old.span(of: record, before: oldEnd.offset), span.end <= oldEnd.offset else { continue }
            cached[record.rawName] = (record, span)
        }
        var reuses: [Reuse] = []
        var previousEnd: UInt64 = 0
        for record in newRecords.sorted(by: { $0.localHeaderOffset < $1.localHeaderOffset }) {
            guard record.flags & 1 == 0, let match = cached[record.rawName], match.record.method == record.method,
                  match.record.crc == record.crc, match.record.compressedSize == record.compressedSize,
                  match.record.size == record.size, record.localHeaderOffset >= previousEnd
            else { continue }
            let span = match.span
            let (start, overflow) = record.localHeaderOffset.addingReportingOverflow(span.dataStart - span.start)
            let (end, past) = start.addingReportingOverflow(record.compressedSize)
            guard !overflow, !past, end <= newEnd.offset, end <= UInt64(Int64.max) else { continue }
            reuses.append(Reuse(index: record.index, newRange: Int64(start)..<Int64(end), oldOffset: Int64(span.dataStart)))
            previousEnd = end
        }
        return reuses
    }
}
