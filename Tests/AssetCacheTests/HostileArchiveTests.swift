import Foundation
import Testing

@testable import AssetCache

/// Every ZIP in fixtures/hostile/zip (fixtures/generate_hostile.py) against the
/// unpacker, with the exact reason.
@Suite struct HostileArchiveTests {
    typealias F = ValidationFixtures

    static let escape = String(repeating: "../", count: 16) + "tmp/assetcache-hostile-evil.txt"

    /// Refused from the central directory alone: nothing is created.
    @Test(arguments: [
        ("slip-parent.zip", AssetErrorKind.unsafeArchive, "entry '\(escape)' escapes the archive root"),
        ("slip-inner-parent.zip", .unsafeArchive, "entry 'img/../../\(escape)' has a '..' path component"),
        ("slip-absolute.zip", .unsafeArchive, "entry '/tmp/assetcache-hostile-evil.txt' is an absolute path"),
        ("slip-backslash.zip", .unsafeArchive,
         "entry '\(escape.replacingOccurrences(of: "/", with: "\\"))' has a backslash in its name"),
        ("slip-drive.zip", .unsafeArchive, "entry 'C:/Windows/evil.txt' starts with a drive letter"),
        ("slip-dot.zip", .unsafeArchive, "entry './img/../evil.txt' has a '.' path component"),
        ("slip-empty-component.zip", .unsafeArchive, "entry 'img//evil.txt' has an empty path component"),
        ("slip-nul.zip", .unsafeArchive, "entry 'page.html\\x00/\(escape)' has a NUL byte in its name"),
        ("slip-control.zip", .unsafeArchive, "entry 'evil\\x1B[2J.txt' has a control character in its name"),
        ("symlink.zip", .unsafeArchive, "entry 'passwd' is a symlink"),
        ("symlink-dir-then-file.zip", .unsafeArchive, "entry 'assets' is a symlink"),
        ("device.zip", .unsafeArchive, "entry 'tty' is a device"),
        ("fifo.zip", .unsafeArchive, "entry 'pipe' is a FIFO"),
        ("duplicate.zip", .unsafeArchive, "entry 'index.html' appears twice"),
        ("duplicate-normalised.zip", .unsafeArchive, "entry 'café.html' appears twice"),
        ("file-then-directory.zip", .unsafeArchive, "entry 'img/' is both a file and a directory"),
        ("ratio-bomb.zip", .archiveLimits,
         "entry 'zeros.bin' expands 1030:1 (8388608 bytes from 8144), over the limit of 200:1"),
        ("total-size-bomb.zip", .archiveLimits, "archive declares more than 268435456 bytes unpacked (at entry 'part-255.bin')"),
        ("overlap-full.zip", .archiveLimits, "entries '0' and '1' share one local header at offset 0 (full overlap)"),
        ("overlap-quoted.zip", .archiveLimits, "entry 'f00' (bytes 0..<3336) overlaps entry 'f01' at offset 38 (quoted overlap)"),
        ("entries-20000.zip", .archiveLimits, "archive has 20000 entries, over the limit of 10000"),
        ("size-local-lie.zip", .invalidArchive, "local headers disagree with the central directory: Zip archive inconsistent"),
        ("truncated.zip", .invalidArchive, "truncated ZIP archive: no end of central directory record"),
        ("not-a-zip.zip", .invalidArchive, "not a ZIP archive: Not a zip archive (starts with '<!DOCTYPE html')"),
        ("encrypted-zipcrypto.zip", .invalidArchive, "entry 'index.html' is encrypted"),
        ("encrypted-aes.zip", .invalidArchive, "entry 'index.html' is encrypted"),
        ("method-bzip2.zip", .invalidArchive,
         "entry 'index.html' uses compression method 12; only stored (0) and deflate (8) are supported"),
        ("method-lzma.zip", .invalidArchive,
         "entry 'index.html' uses compression method 14; only stored (0) and deflate (8) are supported"),
    ])
    func refusedBeforeWriting(name: String, kind: AssetErrorKind, message: String) throws {
        let scratch = try F.Scratch()
        let result = ArchiveUnpacker.unpack(zipPath: F.hostile("zip/" + name), into: scratch.path + "/out")
        #expect(result == .failure(AssetFailure(kind, message)))
        #expect(try scratch.listing() == [])
        #expect(!FileManager.default.fileExists(atPath: "/tmp/assetcache-hostile-evil.txt"))
    }

    /// Lies only the bytes reveal: found while streaming, never past the declared size.
    @Test(arguments: [
        ("size-understated.zip", AssetErrorKind.archiveLimits, "entry 'index.html' is larger than declared (16 bytes)"),
        ("size-overstated.zip", .invalidArchive, "entry 'index.html' has 271 bytes, not the 371 declared"),
        ("crc-at-eof.zip", .invalidArchive, "CRC error in entry 'big.txt'"),
    ])
    func refusedWhileStreaming(name: String, kind: AssetErrorKind, message: String) throws {
        let scratch = try F.Scratch()
        let result = ArchiveUnpacker.unpack(zipPath: F.hostile("zip/" + name), into: scratch.path + "/out")
        #expect(result == .failure(AssetFailure(kind, message)))
    }

    /// The overlap check alone catches both bombs: no entry is over the ratio
    /// threshold, and libzip's consistency check passes the quoted one.
    @Test(arguments: ["overlap-full.zip", "overlap-quoted.zip"])
    func overlapIsCaughtWithoutTheRatioRule(name: String) throws {
        var limits = ArchiveLimits()
        limits.maxRatio = .max
        let scratch = try F.Scratch()
        let failure = ArchiveUnpacker.unpack(zipPath: F.hostile("zip/" + name), into: scratch.path + "/out", limits: limits)
            .validationFailure
        #expect(failure?.kind == .archiveLimits)
        #expect(failure?.message.hasSuffix("overlap)") == true)
    }

    @Test func zip64ArchiveUnpacks() throws {
        let scratch = try F.Scratch()
        let info = try ArchiveUnpacker.unpack(zipPath: F.hostile("zip/zip64.zip"), into: scratch.path + "/out").get()
        #expect(try scratch.tree("out") == ["app.js", "img/", "index.html", "style.css"])
        #expect(info.files == 3)
        #expect(try F.bytes(scratch.path + "/out/style.css") == F.bytes(F.html("bundle/style.css")))
    }

    @Test func zip64EndRecordsAndSpansAreRead() throws {
        let directory = try ZipCentralDirectory(path: F.hostile("zip/zip64.zip"))
        let end = try directory.end()
        #expect(end.isZip64)
        #expect(end.entryCount == 4)
        let records = try directory.records(end)
        #expect(records.map { String(decoding: $0.rawName, as: UTF8.self) } == ["index.html", "style.css", "img/", "app.js"])
        let spans = try records.map { record throws(ZipCentralDirectory.Failure) in try directory.span(of: record, before: end.offset) }
        // Each entry ends exactly where the next begins; the last at the central directory.
        #expect(zip(spans, spans.dropFirst()).allSatisfy { $0.end == $1.start })
        #expect(spans.last?.end == end.offset)
        #expect(spans.first?.start == 0)
    }

    /// The delta engine's tail (issue 30): the same end records and records as
    /// the whole file gives, at the archive's offsets; a tail too short says
    /// where it would have to start.
    @Test func aFetchedTailReadsAsTheWholeArchive() throws {
        let path = F.hostile("zip/zip64.zip")
        let whole = try ZipCentralDirectory(path: path)
        let end = try whole.end()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let scratch = try F.Scratch()
        let tail = try scratch.file("tail", contents: bytes.suffix(bytes.count - Int(end.offset)))
        let read = try ZipCentralDirectory(tailPath: tail, fileSize: UInt64(bytes.count))
        #expect(try read.end() == end)
        #expect(try read.records(end) == whole.records(end))
        let short = try scratch.file("short", contents: bytes.suffix(30))
        let cut = try ZipCentralDirectory(tailPath: short, fileSize: UInt64(bytes.count))
        #expect(throws: ZipCentralDirectory.Failure.self) { try cut.records(try cut.end()) }
        #expect(cut.neededFrom != nil && cut.neededFrom! < UInt64(bytes.count - 30))
    }

    /// The zip64 fixture's directory, and the delta engine's reuse of its
    /// entries for a new central directory of `new` records at `offset`.
    static func reuse() throws -> (
        old: ZipCentralDirectory, end: ZipCentralDirectory.End, records: [ZipCentralDirectory.Record],
        reused: ([ZipCentralDirectory.Record], UInt64) -> [EntryComparison.Reuse]
    ) {
        try reuse(wholeSpans: true)
    }

    /// ``reuse()``, whole spans allowed or not (the rebuild is proven or not).
    static func reuse(wholeSpans: Bool) throws -> (
        old: ZipCentralDirectory, end: ZipCentralDirectory.End, records: [ZipCentralDirectory.Record],
        reused: ([ZipCentralDirectory.Record], UInt64) -> [EntryComparison.Reuse]
    ) {
        let old = try ZipCentralDirectory(path: F.hostile("zip/zip64.zip"))
        let end = try old.end()
        let records = try old.records(end)
        return (old, end, records, { new, offset in
            var newEnd = end
            newEnd.offset = offset
            return EntryComparison.reusable(
                old: old, oldEnd: end, oldRecords: records, newRecords: new, newEnd: newEnd, wholeSpans: wholeSpans)
        })
    }

    /// Issue 37: unless the rebuild is checked against a pin or a digest, no
    /// cached local header is reused — only each entry's data, exactly what a
    /// whole span's ``EntryComparison/Reuse/dataOnly`` gives after a failed check.
    @Test func withoutProofOnlyDataIsReused() throws {
        let (old, end, records, unproven) = try Self.reuse(wholeSpans: false)
        let (_, _, _, proven) = try Self.reuse(wholeSpans: true)
        let dataOnly = unproven(records, end.offset)
        #expect(!dataOnly.isEmpty && dataOnly.allSatisfy { !$0.includesLocalHeader })
        #expect(dataOnly == proven(records, end.offset).compactMap(\.dataOnly))
        for reuse in dataOnly {
            let span = try old.span(of: records[reuse.index], before: end.offset)
            #expect(reuse.newRange == Int64(span.dataStart)..<Int64(span.end))
        }
        // The range plan then asks for every local header, and a second plan
        // after a first that fetched some asks only for the rest.
        let needed = RangePlan.ranges(before: Int64(end.offset), reused: dataOnly)
        #expect(needed.first?.lowerBound == 0)
        let rest = RangePlan.ranges(before: Int64(end.offset), reused: dataOnly, excluding: Array(needed.prefix(1)))
        #expect(rest == Array(needed.dropFirst()))
    }

    /// Which entries a delta reuses: the same name, method, CRC and sizes,
    /// placed where a hostile central directory cannot make two overlap or
    /// run into the directory itself.
    @Test func entryComparisonReusesOnlyWhatFitsTheNewLayout() throws {
        let (_, end, records, reusedAt) = try Self.reuse()
        func reused(_ new: [ZipCentralDirectory.Record], directoryAt offset: UInt64) -> [EntryComparison.Reuse] {
            reusedAt(new, offset)
        }
        // Unchanged: every entry's whole span, from its local header to the
        // next one's (the directory entry's too), as the records are the same.
        let same = reused(records, directoryAt: end.offset)
        let starts = records.map(\.localHeaderOffset).sorted()
        #expect(same.map(\.newRange) == zip(starts, starts.dropFirst() + [end.offset]).map { Int64($0)..<Int64($1) })
        #expect(same.allSatisfy { $0.includesLocalHeader } && same.map(\.oldOffset) == same.map(\.newRange.lowerBound))
        // Moved 100 bytes on: the same spans 100 bytes further.
        let moved = records.map { record in
            var record = record
            record.localHeaderOffset += 100
            return record
        }
        #expect(reused(moved, directoryAt: end.offset + 100).map(\.newRange.lowerBound) == same.map { $0.newRange.lowerBound + 100 })
        // A changed CRC, or two entries claiming the same place: not reused twice.
        var changed = records
        changed[0].crc ^= 1
        #expect(!reused(changed, directoryAt: end.offset).contains { $0.index == 0 })
        var stacked = records
        stacked[1].localHeaderOffset = stacked[0].localHeaderOffset
        stacked[1].rawName = stacked[0].rawName
        stacked[1].crc = stacked[0].crc
        stacked[1].size = stacked[0].size
        stacked[1].compressedSize = stacked[0].compressedSize
        stacked[1].method = stacked[0].method
        stacked[1].bytesButOffset = stacked[0].bytesButOffset
        let onTop = reused(stacked, directoryAt: end.offset)
        #expect(onTop.filter { $0.index <= 1 }.count == 1)
        #expect(zip(onTop, onTop.dropFirst()).allSatisfy { $0.newRange.upperBound <= $1.newRange.lowerBound })
        // Past the new central directory's start: not reused.
        #expect(reused(records, directoryAt: 10).isEmpty)
    }

    /// Rules (b) and (c) of ``EntryComparison``: a record that differs from
    /// the cached one in more than its offset, or a span of another length,
    /// reuses the entry's data only (its local header is fetched).
    @Test func aRecordOrSpanThatDiffersReusesTheDataOnly() throws {
        let (old, end, records, reused) = try Self.reuse()
        let spans = try records.map { record throws(ZipCentralDirectory.Failure) in try old.span(of: record, before: end.offset) }
        func dataOnly(_ index: Int) -> EntryComparison.Reuse {
            EntryComparison.Reuse(
                index: index, newRange: Int64(spans[index].dataStart)..<Int64(spans[index].end), oldOffset: Int64(spans[index].dataStart))
        }
        // (b) The same file written at another time (the record's bytes 12–13).
        var retimed = records
        retimed[1].bytesButOffset[12] ^= 1
        let afterRetiming = reused(retimed, end.offset)
        #expect(afterRetiming.first { $0.index == 1 } == dataOnly(1))
        #expect(afterRetiming.filter { $0.index != 1 }.allSatisfy { $0.includesLocalHeader })
        #expect(afterRetiming.count == records.count)
        // (c) The central directory 8 bytes further: the last span is longer than the cached one.
        let last = try #require(records.max { $0.localHeaderOffset < $1.localHeaderOffset }?.index)
        let afterGrowing = reused(records, end.offset + 8)
        #expect(afterGrowing.first { $0.index == last } == dataOnly(last))
        #expect(afterGrowing.filter { $0.index != last }.allSatisfy { $0.includesLocalHeader })
        // The rebuild's check of a reused local header: this record's name, method, CRC and sizes.
        #expect(records.allSatisfy(old.localHeaderAgrees))
        var renamed = records[0]
        renamed.rawName = Array("other.html".utf8)
        var recrc = records[0]
        recrc.crc ^= 1
        #expect(!old.localHeaderAgrees(with: renamed) && !old.localHeaderAgrees(with: recrc))
    }

    /// End of central directory record: `count` entries, `size` bytes at `offset`.
    static func endRecord(count: UInt16, size: UInt32, offset: UInt32) -> [UInt8] {
        var bytes: [UInt8] = [0x50, 0x4B, 0x05, 0x06, 0, 0, 0, 0]
        for value in [count, count] { bytes += [UInt8(value & 0xFF), UInt8(value >> 8)] }
        for value in [size, offset] { bytes += (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }
        return bytes + [0, 0]
    }

    /// Structures no fixture needs a file for: the central-directory reader's own refusals.
    @Test(arguments: [
        ("a count the directory cannot hold", [UInt8](repeating: 0, count: 10) + endRecord(count: 5, size: 10, offset: 0),
         "the central directory declares 5 entries in 10 bytes"),
        ("a directory past the end record", endRecord(count: 1, size: 46, offset: 1000),
         "the central directory (46 bytes at offset 1000) runs past its end record"),
        ("a record that is not one", [UInt8](repeating: 0x41, count: 46) + endRecord(count: 1, size: 46, offset: 0),
         "no central directory record #0 at offset 0"),
    ])
    func malformedDirectoryIsInvalid(what: String, bytes: [UInt8], message: String) throws {
        let scratch = try F.Scratch()
        let zip = try scratch.file("bad.zip", contents: Data(bytes))
        let result = ArchiveUnpacker.unpack(zipPath: zip, into: scratch.path + "/out")
        #expect(result == .failure(AssetFailure(.invalidArchive, message)), "\(what)")
    }

    @Test func emptyArchiveUnpacksToAnEmptyFolder() throws {
        let scratch = try F.Scratch()
        let zip = try scratch.file("empty.zip", contents: Data(Self.endRecord(count: 0, size: 0, offset: 0)))
        let info = try ArchiveUnpacker.unpack(zipPath: zip, into: scratch.path + "/out").get()
        #expect(info == ArchiveInfo(entries: 0, files: 0, unpackedBytes: 0))
        #expect(try scratch.tree("out") == [])
    }
}
