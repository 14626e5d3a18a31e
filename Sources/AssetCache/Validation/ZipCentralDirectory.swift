#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A small reader of a ZIP's end records, central directory and local headers
/// (APPNOTE 4.3), ZIP64 included. libzip 1.7 gives no data offsets, so
/// this is what shows where each entry's bytes lie: overlapping entries, the
/// "full" and "quoted" overlap of zip bombs, are only visible from here. It judges
/// nothing beyond the structure: the rules are ``ArchiveEntryChecks``'.
final class ZipCentralDirectory {
    /// The end of central directory record, with its ZIP64 values when there are any.
    struct End: Equatable {
        var entryCount: UInt64
        var offset: UInt64
        var size: UInt64
        /// Where the records after the central directory start: the central
        /// directory must end here.
        var limit: UInt64
        var isZip64: Bool
    }

    /// One central-directory record: the fields the checks and the overlap test need.
    struct Record: Equatable {
        var index: Int
        /// As stored, NUL bytes included: libzip's C strings stop at the first one.
        var rawName: [UInt8]
        var flags: UInt16
        var method: UInt16
        var crc: UInt32
        var compressedSize: UInt64
        var size: UInt64
        var localHeaderOffset: UInt64
        /// The whole record as stored, its 32-bit local-header offset zeroed:
        /// equal for the same entry written by the same tool, wherever it lies
        /// (the delta engine reuses its local header then, ``EntryComparison``).
        /// A ZIP64 offset stays in the extra field: such records never compare equal when moved.
        var bytesButOffset: [UInt8]
    }

    /// The bytes one entry occupies: its local header, then its data.
    struct Span: Equatable {
        var index: Int
        var start: UInt64
        var dataStart: UInt64
        var end: UInt64
    }

    enum Failure: Error, Equatable {
        /// No end of central directory record: not a ZIP at all.
        case notZip
        case malformed(String)
        case unreadable(String)
    }

    private static let endSignature: UInt32 = 0x0605_4B50
    private static let zip64EndSignature: UInt32 = 0x0606_4B50
    private static let zip64LocatorSignature: UInt32 = 0x0706_4B50
    private static let centralSignature: UInt32 = 0x0201_4B50
    private static let localSignature: UInt32 = 0x0403_4B50
    private static let endLength = 22
    private static let maxCommentLength = 0xFFFF

    private let descriptor: Int32
    let fileSize: UInt64
    /// Where the bytes at `path` start in the archive: 0, or for the tail of a
    /// ZIP fetched by a range request, the tail's offset (``init(tailPath:fileSize:)``).
    private let base: UInt64
    /// Set when a read needed bytes before `base`: where the tail would have
    /// to start for the read to succeed.
    private(set) var neededFrom: UInt64?

    init(path: String) throws(Failure) {
        switch ReadOnlyFile.open(path) {
        case .success(let file):
            descriptor = file.descriptor
            fileSize = UInt64(max(0, file.size))
            base = 0
        case .failure(let error):
            throw .unreadable(error.message)
        }
    }

    /// The file at `tailPath` holds the last bytes of an archive of `fileSize`
    /// bytes (the delta engine's `Range: bytes=-N`): offsets are the archive's.
    init(tailPath: String, fileSize: UInt64) throws(Failure) {
        switch ReadOnlyFile.open(tailPath) {
        case .success(let file):
            descriptor = file.descriptor
            let held = UInt64(max(0, file.size))
            guard held <= fileSize else {
                _ = closeDescriptor(file.descriptor)
                throw .malformed("the tail (\(held) bytes) is longer than the archive (\(fileSize) bytes)")
            }
            self.fileSize = fileSize
            base = fileSize - held
        case .failure(let error):
            throw .unreadable(error.message)
        }
    }

    deinit { _ = closeDescriptor(descriptor) }

    // MARK: end records

    /// The last end record whose comment fits in the file, searched backwards over
    /// the largest possible comment, then its ZIP64 counterpart when a locator
    /// precedes it.
    func end() throws(Failure) -> End {
        guard fileSize >= UInt64(Self.endLength) else { throw .notZip }
        let wanted = min(fileSize, UInt64(Self.endLength + Self.maxCommentLength))
        // A tail may hold less than the largest comment: search what it holds.
        let searched = min(wanted, fileSize - base)
        let tail = try bytes(at: fileSize - searched, count: Int(searched))
        var position = tail.count - Self.endLength
        while position >= 0 {
            if tail.uint32(at: position) == Self.endSignature {
                let commentLength = Int(tail.uint16(at: position + 20))
                if position + Self.endLength + commentLength <= tail.count {
                    return try end(record: Array(tail[position..<(position + Self.endLength)]),
                                   at: fileSize - searched + UInt64(position))
                }
            }
            position -= 1
        }
        if searched < wanted { neededFrom = fileSize - wanted }
        throw .notZip
    }

    private func end(record: [UInt8], at offset: UInt64) throws(Failure) -> End {
        let disk = record.uint16(at: 4), centralDisk = record.uint16(at: 6)
        let entriesOnDisk = record.uint16(at: 8), entries = record.uint16(at: 10)
        var result = End(
            entryCount: UInt64(entries), offset: UInt64(record.uint32(at: 16)), size: UInt64(record.uint32(at: 12)),
            limit: offset, isZip64: false
        )
        if offset >= 20, try bytes(at: offset - 20, count: 4).uint32(at: 0) == Self.zip64LocatorSignature {
            let locator = try bytes(at: offset - 20, count: 20)
            let zip64Offset = locator.uint64(at: 8)
            guard locator.uint32(at: 4) == 0, locator.uint32(at: 16) <= 1 else {
                throw .malformed("split (multi-disk) archives are not supported")
            }
            guard zip64Offset <= offset - 20, offset - 20 - zip64Offset >= 56 else {
                throw .malformed("the ZIP64 end of central directory locator points outside the file")
            }
            let zip64 = try bytes(at: zip64Offset, count: 56)
            guard zip64.uint32(at: 0) == Self.zip64EndSignature else {
                throw .malformed("no ZIP64 end of central directory record at offset \(zip64Offset)")
            }
            guard zip64.uint32(at: 16) == 0, zip64.uint32(at: 20) == 0, zip64.uint64(at: 24) == zip64.uint64(at: 32) else {
                throw .malformed("split (multi-disk) archives are not supported")
            }
            result = End(
                entryCount: zip64.uint64(at: 32), offset: zip64.uint64(at: 48), size: zip64.uint64(at: 40),
                limit: zip64Offset, isZip64: true
            )
        } else {
            guard disk == 0, centralDisk == 0, entriesOnDisk == entries else {
                throw .malformed("split (multi-disk) archives are not supported")
            }
        }
        let (centralEnd, overflow) = result.offset.addingReportingOverflow(result.size)
        guard !overflow, centralEnd <= result.limit else {
            throw .malformed("the central directory (\(result.size) bytes at offset \(result.offset)) runs past its end record")
        }
        // Every record takes at least 46 bytes: a count the directory cannot hold is a lie.
        guard result.entryCount <= result.size / 46 else {
            throw .malformed("the central directory declares \(result.entryCount) entries in \(result.size) bytes")
        }
        return result
    }

    // MARK: central directory

    /// Every record, in order; `end.entryCount` has been checked against the
    /// entry limit, so the list stays small.
    func records(_ end: End) throws(Failure) -> [Record] {
        var records: [Record] = []
        records.reserveCapacity(Int(clamping: end.entryCount))
        let limit = end.offset + end.size
        var position = end.offset
        for index in 0..<Int(end.entryCount) {
            guard limit - position >= 46 else {
                throw .malformed("central directory record #\(index) is cut off")
            }
            let fixed = try bytes(at: position, count: 46)
            guard fixed.uint32(at: 0) == Self.centralSignature else {
                throw .malformed("no central directory record #\(index) at offset \(position)")
            }
            let nameLength = Int(fixed.uint16(at: 28)), extraLength = Int(fixed.uint16(at: 30))
            let commentLength = Int(fixed.uint16(at: 32))
            let variable = UInt64(nameLength + extraLength + commentLength)
            guard limit - position - 46 >= variable else {
                throw .malformed("central directory record #\(index) runs past the central directory")
            }
            let rest = try bytes(at: position + 46, count: Int(variable))
            var record = Record(
                index: index, rawName: Array(rest[0..<nameLength]), flags: fixed.uint16(at: 8),
                method: fixed.uint16(at: 10), crc: fixed.uint32(at: 16), compressedSize: UInt64(fixed.uint32(at: 20)),
                size: UInt64(fixed.uint32(at: 24)), localHeaderOffset: UInt64(fixed.uint32(at: 42)),
                bytesButOffset: Array(fixed[0..<42]) + [0, 0, 0, 0] + rest
            )
            let disk = fixed.uint16(at: 34)
            try Self.applyZip64(
                Array(rest[nameLength..<(nameLength + extraLength)]), to: &record, needsDisk: disk == 0xFFFF)
            if disk != 0, disk != 0xFFFF {
                throw .malformed("entry #\(index) is on disk \(disk): split archives are not supported")
            }
            records.append(record)
            position += 46 + variable
        }
        return records
    }

    /// The ZIP64 extended information field (0x0001) holds, in this order, each of
    /// size, compressed size, local header offset and disk whose 32-bit field is
    /// all ones (APPNOTE 4.5.3).
    private static func applyZip64(_ extra: [UInt8], to record: inout Record, needsDisk: Bool) throws(Failure) {
        let needsSize = record.size == 0xFFFF_FFFF
        let needsCompressed = record.compressedSize == 0xFFFF_FFFF
        let needsOffset = record.localHeaderOffset == 0xFFFF_FFFF
        guard needsSize || needsCompressed || needsOffset || needsDisk else { return }
        var position = 0
        while extra.count - position >= 4 {
            let id = extra.uint16(at: position), length = Int(extra.uint16(at: position + 2))
            let body = position + 4
            guard extra.count - body >= length else { break }
            if id == 0x0001 {
                var cursor = body
                func next() throws(Failure) -> UInt64 {
                    guard body + length - cursor >= 8 else {
                        throw .malformed("entry #\(record.index) has a ZIP64 field too short for its sizes")
                    }
                    defer { cursor += 8 }
                    return extra.uint64(at: cursor)
                }
                if needsSize { record.size = try next() }
                if needsCompressed { record.compressedSize = try next() }
                if needsOffset { record.localHeaderOffset = try next() }
                return
            }
            position = body + length
        }
        throw .malformed("entry #\(record.index) needs a ZIP64 field for its sizes or offset and has none")
    }

    // MARK: local headers

    /// Where the entry's local header starts and its data ends: the header's own
    /// name and extra field lengths (which may differ from the central
    /// directory's) give where the data starts, the central directory's compressed
    /// size how long it is.
    func span(of record: Record, before limit: UInt64) throws(Failure) -> Span {
        let start = record.localHeaderOffset
        guard start < limit, limit - start >= 30 else {
            throw .malformed("the local header of entry #\(record.index) at offset \(start) is outside the entries' area")
        }
        let header = try bytes(at: start, count: 30)
        guard header.uint32(at: 0) == Self.localSignature else {
            throw .malformed("no local header for entry #\(record.index) at offset \(start)")
        }
        let dataStart = start + 30 + UInt64(header.uint16(at: 26)) + UInt64(header.uint16(at: 28))
        let (end, overflow) = dataStart.addingReportingOverflow(record.compressedSize)
        return Span(index: record.index, start: start, dataStart: dataStart, end: overflow ? .max : end)
    }

    /// Whether the local header at `record`'s offset is of the same entry:
    /// its name and method, and unless a data descriptor carries them (flag
    /// bit 3) its CRC-32 and sizes (all ones: in a ZIP64 field), as libzip's
    /// `ZIP_CHECKCONS` compares them.
    func localHeaderAgrees(with record: Record) -> Bool {
        guard let header = try? bytes(at: record.localHeaderOffset, count: 30), header.uint32(at: 0) == Self.localSignature,
              header.uint16(at: 8) == record.method,
              let name = try? bytes(at: record.localHeaderOffset + 30, count: Int(header.uint16(at: 26))), name == record.rawName
        else { return false }
        guard header.uint16(at: 6) & 8 == 0 else { return true }
        func agrees(_ stored: UInt32, _ value: UInt64) -> Bool { stored == 0xFFFF_FFFF || UInt64(stored) == value }
        return header.uint32(at: 14) == record.crc && agrees(header.uint32(at: 18), record.compressedSize)
            && agrees(header.uint32(at: 22), record.size)
    }

    // MARK: reading

    private func bytes(at offset: UInt64, count: Int) throws(Failure) -> [UInt8] {
        guard count > 0 else { return [] }
        guard offset >= base else {
            neededFrom = min(neededFrom ?? offset, offset)
            throw .malformed("needs \(count) bytes at offset \(offset), before the fetched tail")
        }
        guard offset <= fileSize, fileSize - offset >= UInt64(count) else {
            throw .malformed("the archive is truncated: needs \(count) bytes at offset \(offset), has \(fileSize)")
        }
        var buffer = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = buffer.withUnsafeMutableBytes { raw in
                pread(descriptor, raw.baseAddress! + done, count - done, off_t(offset - base) + off_t(done))
            }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else {
                throw got == 0
                    ? .malformed("the archive is truncated at offset \(offset + UInt64(done))")
                    : .unreadable("read failed: \(String(cString: strerror(errno)))")
            }
            done += got
        }
        return buffer
    }
}

private func closeDescriptor(_ descriptor: Int32) -> Int32 { close(descriptor) }

/// Little-endian fields, as every number in a ZIP is stored.
extension Array where Element == UInt8 {
    fileprivate func uint16(at index: Int) -> UInt16 { UInt16(self[index]) | UInt16(self[index + 1]) << 8 }

    fileprivate func uint32(at index: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 | UInt32(self[index + $1]) << (8 * $1) }
    }

    fileprivate func uint64(at index: Int) -> UInt64 {
        (0..<8).reduce(UInt64(0)) { $0 | UInt64(self[index + $1]) << (8 * $1) }
    }
}
