import Crypto
import Foundation
import Testing

@testable import AssetCache

@Suite struct ArchiveUnpackerTests {
    typealias F = ValidationFixtures

    static let bundleFiles = ["app.js", "img/", "img/logo.png", "index.html", "style.css"]

    @Test(arguments: [("bundle.zip", 5), ("bundle-stored.zip", 4)])
    func bundleUnpacksToTheExactFiles(name: String, entries: Int) throws {
        let scratch = try F.Scratch()
        let target = scratch.path + "/out"
        let info = try ArchiveUnpacker.unpack(zipPath: F.html(name), into: target).get()

        #expect(try scratch.tree("out") == Self.bundleFiles)
        var total: Int64 = 0
        var digests: [String: String] = [:]
        for file in Self.bundleFiles where !file.hasSuffix("/") {
            let expected = try F.bytes(F.html("bundle/" + file))
            #expect(try F.bytes(target + "/" + file) == expected, "\(file)")
            total += Int64(expected.count)
            digests[file] = SHA256.hash(data: expected).map { String(format: "%02x", $0) }.joined()
        }
        #expect(info.entries == entries && info.files == 4)
        #expect(info.unpackedBytes == total)
        // The tree's digest list is of the bytes written, file by file.
        #expect(Dictionary(uniqueKeysWithValues: info.digests.map { ($0.path, $0.sha256) }) == digests)
        #expect(try ImageValidator.validate(path: target + "/img/logo.png").get() == ImageInfo(format: .png, width: 16, height: 16))
    }

    @Test(arguments: [
        ("slip.zip", "entry '../evil.txt' escapes the archive root"),
        ("absolute.zip", "entry '/tmp/evil.txt' is an absolute path"),
        ("backslash.zip", "entry '..\\evil.txt' has a backslash in its name"),
        ("symlink.zip", "entry 'link' is a symlink"),
        ("device.zip", "entry 'null' is a device"),
        ("duplicate.zip", "entry 'index.html' appears twice"),
        ("file-dir-clash.zip", "entry 'img/logo.png' needs 'img' as a directory, but it is a file"),
    ])
    func unsafeArchiveWritesNothing(name: String, message: String) throws {
        let scratch = try F.Scratch()
        let evilExisted = FileManager.default.fileExists(atPath: "/tmp/evil.txt")
        let result = ArchiveUnpacker.unpack(zipPath: F.html(name), into: scratch.path + "/out")
        #expect(result == .failure(AssetFailure(.unsafeArchive, message)))
        // Every check runs before extraction: not even the target is created.
        #expect(try scratch.listing() == [])
        #expect(FileManager.default.fileExists(atPath: "/tmp/evil.txt") == evilExisted)
    }

    @Test(arguments: [
        ("encrypted.zip", "entry 'secret.txt' is encrypted"),
        ("bzip2.zip", "entry 'index.html' uses compression method 12; only stored (0) and deflate (8) are supported"),
        ("crc.zip", "CRC error in entry 'index.html'"),
        (
            "not-a-zip.zip",
            "not a ZIP archive: Not a zip archive (starts with '<!DOCTYPE html')"
        ),
    ])
    func invalidArchiveFails(name: String, message: String) throws {
        let scratch = try F.Scratch()
        let result = ArchiveUnpacker.unpack(zipPath: F.html(name), into: scratch.path + "/out")
        #expect(result == .failure(AssetFailure(.invalidArchive, message)))
    }

    @Test func entryLargerThanDeclaredIsCutOff() throws {
        let scratch = try F.Scratch()
        let result = ArchiveUnpacker.unpack(zipPath: F.html("understated.zip"), into: scratch.path + "/out")
        #expect(result == .failure(AssetFailure(.archiveLimits, "entry 'index.html' is larger than declared (16 bytes)")))
        // What was written stops at the declared size.
        #expect(try F.bytes(scratch.path + "/out/index.html").count <= 16)
    }

    @Test func tooManyEntries() throws {
        var limits = ArchiveLimits()
        limits.maxEntries = 2
        let failure = try unpackBundle(limits: limits)
        #expect(failure == AssetFailure(.archiveLimits, "archive has 5 entries, over the limit of 2"))
    }

    @Test func tooLargeUnpacked() throws {
        var limits = ArchiveLimits()
        limits.maxUnpackedSize = 10
        let failure = try unpackBundle(limits: limits)
        #expect(failure == AssetFailure(.archiveLimits, "archive declares more than 10 bytes unpacked (at entry 'index.html')"))
    }

    @Test func tooHighRatio() throws {
        var limits = ArchiveLimits()
        limits.maxRatio = 2
        limits.ratioMinEntrySize = 1000
        let failure = try unpackBundle(limits: limits)
        #expect(failure?.kind == .archiveLimits)
        #expect(failure?.message.hasPrefix("entry 'app.js' expands ") == true)
        #expect(failure?.message.hasSuffix(", over the limit of 2:1") == true)
    }

    @Test func ratioIgnoresSmallEntries() throws {
        var limits = ArchiveLimits()
        limits.maxRatio = 1
        limits.ratioMinEntrySize = 4096
        let scratch = try F.Scratch()
        #expect(throws: Never.self) {
            try ArchiveUnpacker.unpack(zipPath: F.html("bundle.zip"), into: scratch.path + "/out", limits: limits).get()
        }
    }

    @Test func targetMustNotExist() throws {
        let scratch = try F.Scratch()
        let failure = ArchiveUnpacker.unpack(zipPath: F.html("bundle.zip"), into: scratch.path).validationFailure
        #expect(failure?.kind == .storage)
        #expect(failure?.message.contains("File exists") == true)
    }

    @Test func missingZipIsAStorageFailure() throws {
        let scratch = try F.Scratch()
        let failure = ArchiveUnpacker.unpack(zipPath: scratch.path + "/none.zip", into: scratch.path + "/out").validationFailure
        #expect(failure?.kind == .storage)
    }

    private func unpackBundle(limits: ArchiveLimits) throws -> AssetFailure? {
        let scratch = try F.Scratch()
        let result = ArchiveUnpacker.unpack(zipPath: F.html("bundle.zip"), into: scratch.path + "/out", limits: limits)
        #expect(try scratch.listing() == [], "limits are checked before extraction")
        return result.validationFailure
    }
}

/// The path rules on names no fixture carries.
@Suite struct ArchiveEntryPathTests {
    private func check(_ name: String, raw: [UInt8]? = nil) -> Result<[String], AssetFailure> {
        let entry = ArchiveEntry(
            index: 0, name: name, rawName: raw ?? Array(name.utf8), size: 0, compressedSize: 0,
            compressionMethod: 0, encryptionMethod: 0, unixMode: nil
        )
        do throws(AssetFailure) {
            return .success(try ArchiveEntryPath.components(of: entry))
        } catch {
            return .failure(error)
        }
    }

    @Test func safeNames() {
        #expect(check("index.html") == .success(["index.html"]))
        #expect(check("img/") == .success(["img"]))
        #expect(check("a/b/c.png") == .success(["a", "b", "c.png"]))
        #expect(check("...") == .success(["..."]))
        #expect(check("ünïcödé/名前.txt") == .success(["ünïcödé", "名前.txt"]))
    }

    @Test(arguments: [
        ("", "entry #0 has an empty name"),
        ("a/../b", "entry 'a/../b' has a '..' path component"),
        ("a/../../b", "entry 'a/../../b' has a '..' path component"),
        ("..", "entry '..' escapes the archive root"),
        ("../", "entry '../' escapes the archive root"),
        ("./a", "entry './a' has a '.' path component"),
        ("a//b", "entry 'a//b' has an empty path component"),
        ("a//", "entry 'a//' has an empty path component"),
        ("/", "entry '/' is an absolute path"),
        ("C:evil.txt", "entry 'C:evil.txt' starts with a drive letter"),
        ("a\\b", "entry 'a\\b' has a backslash in its name"),
        ("a\nb", "entry 'a\\x0Ab' has a control character in its name"),
        ("a\u{7F}", "entry 'a\\x7F' has a control character in its name"),
        (String(repeating: "x", count: 256), "entry '\(String(repeating: "x", count: 256))' has a path component over 255 bytes"),
    ])
    func unsafeNames(name: String, message: String) {
        #expect(check(name) == .failure(AssetFailure(.unsafeArchive, message)))
    }

    @Test func rawBytesAreCheckedToo() {
        // CP437 decoding would show byte 0x01 as a smiley: the raw name must still be refused.
        #expect(check("a☺b", raw: [0x61, 0x01, 0x62]).validationFailure?.kind == .unsafeArchive)
    }
}

/// Rules across entries and on file types, on entries no fixture carries.
@Suite struct ArchiveEntryChecksTests {
    private func entry(_ name: String, mode: UInt32? = nil, size: Int64 = 0) -> ArchiveEntry {
        ArchiveEntry(
            index: 0, name: name, rawName: Array(name.utf8), size: size, compressedSize: size,
            compressionMethod: 0, encryptionMethod: 0, unixMode: mode
        )
    }

    private func admit(_ entries: [ArchiveEntry]) -> AssetFailure? {
        var checks = ArchiveEntryChecks(limits: ArchiveLimits())
        do throws(AssetFailure) {
            for entry in entries { _ = try checks.admit(entry) }
            return nil
        } catch {
            return error
        }
    }

    @Test func directoryListedAfterItsFilesIsFine() {
        #expect(admit([entry("img/logo.png"), entry("img/"), entry("img/a/")]) == nil)
    }

    @Test func directoryAndFileOfTheSameNameClash() {
        #expect(admit([entry("img/"), entry("img")]) == AssetFailure(.unsafeArchive, "entry 'img' is both a file and a directory"))
        #expect(admit([entry("img"), entry("img/")]) == AssetFailure(.unsafeArchive, "entry 'img/' is both a file and a directory"))
        #expect(admit([entry("a/b"), entry("a")]) == AssetFailure(.unsafeArchive, "entry 'a' is both a file and a directory"))
    }

    @Test func repeatedDirectoryIsADuplicate() {
        #expect(admit([entry("img/"), entry("img/")]) == AssetFailure(.unsafeArchive, "entry 'img/' appears twice"))
    }

    @Test func fileTypesFromUnixModes() {
        #expect(admit([entry("a", mode: 0o100644), entry("d/", mode: 0o040755), entry("n", mode: 0)]) == nil)
        #expect(admit([entry("p", mode: 0o010644)]) == AssetFailure(.unsafeArchive, "entry 'p' is a FIFO"))
        #expect(admit([entry("b", mode: 0o060644)]) == AssetFailure(.unsafeArchive, "entry 'b' is a device"))
    }

    @Test func directoryWithDataIsInvalid() {
        #expect(admit([entry("d/", size: 3)]) == AssetFailure(.invalidArchive, "directory entry 'd/' has 3 bytes of data"))
    }
}
