import Crypto
import FixtureServer
import Foundation
import Testing

/// Issue 37 through the real binary: a ZIP rebuilt by delta is the server's
/// exact bytes, proven by the manifest's pin or a whole-file digest the server
/// sent (`Repr-Digest`, `x-goog-hash`) where there is one, and the report says
/// what each delta rested on (`delta_evidence`).
@Suite struct DeltaEvidenceTests {
    /// `text` in an HTML page of exactly `count` bytes.
    static func page(_ text: String, _ count: Int) -> [UInt8] {
        let body = Array("<html><body>\(text)</body></html>\n".utf8)
        return body + [UInt8](repeating: UInt8(ascii: " "), count: count - body.count)
    }

    static func pin(_ zip: Data) -> String {
        "sha256-" + Data(SHA256.hash(data: zip)).base64EncodedString()
    }

    /// The bundle with an `index.html` of the spring campaign cached; then an
    /// `index.html` of the summer campaign whose last four bytes give it the
    /// spring one's CRC-32 (same name, method, sizes, date: the same central
    /// record), published, and the next run's result.
    static func forged(query: String) async throws -> (DeltaSite, DeltaSite.Files, Data, CommandResult) {
        let spring = page("spring campaign", 4096)
        var old = DeltaSite.bundle()
        old[0].bytes = spring
        let site = try await DeltaSite.start(old, query: query)
        #expect(try await site.prefetch().status == 0)
        var new = old
        new[0].bytes = StoredZip.forgingCRC(of: spring, prefix: page("summer campaign", 4092))
        #expect(new[0].bytes != spring && new[0].bytes.count == spring.count)
        #expect(StoredZip.crc32(new[0].bytes) == StoredZip.crc32(spring))
        let zip = try site.publish(new)
        site.server.resetLog()
        return (site, new, zip, try await site.prefetch())
    }

    @Test func aForgedCRCBehindAReprDigestIsOneFullDownloadOfTheNewTree() async throws {
        let (site, files, zip, run) = try await Self.forged(query: "&digest=sha-256")
        #expect(run.status == 0, "\(run.stderr)")
        let report = try run.report()
        let asset = try #require(report.asset(site.bundleURL))
        #expect(asset.delta_fallback == "digest_mismatch")
        #expect(asset.delta_evidence == nil)
        #expect(asset.sha256 == DeltaRefreshTests.sha256(zip))
        // The tail (every entry's whole span reused: nothing else to ask),
        // the local headers when that rebuild missed the digest, then the
        // one full download.
        #expect(site.server.requests().map(\.status) == [206, 206, 200])
        #expect(site.server.requests().filter { $0.headers["range"] == nil }.count == 1)
        #expect(asset.delta?.requests == 2)
        try site.expectTree(report, files)
        #expect(try await CommandRunner.prefetch(["verify", "--cache-dir", site.cache]).status == 0)
        try await site.server.stop()
    }

    /// Without a pin or a digest nothing but the CRC-32 speaks for an entry's
    /// data: the forged entry's cached bytes are kept (docs/report.md says so),
    /// and the report says the delta rested on `crc32`. Every other byte is
    /// the server's: the local headers are fetched.
    @Test func aForgedCRCWithoutADigestRestsOnCRC32() async throws {
        let (site, files, zip, run) = try await Self.forged(query: "")
        #expect(run.status == 0, "\(run.stderr)")
        let report = try run.report()
        let asset = try #require(report.asset(site.bundleURL))
        #expect(asset.delta_fallback == nil)
        #expect(asset.delta_evidence == "crc32")
        #expect(site.server.requests().map(\.status) == [206, 206])
        // The limitation: the cached index.html, not the server's.
        #expect(asset.sha256 != DeltaRefreshTests.sha256(zip))
        var kept = files
        kept[0].bytes = Self.page("spring campaign", 4096)
        try site.expectTree(report, kept)
        try await site.server.stop()
    }

    /// A ZIP made by Info-ZIP's `zip` after `index.html` was edited and a few
    /// files only read: their central records are the cached ones, their local
    /// headers not (the access time). Unpinned, the local headers are fetched
    /// with the changed entry; with a pin or a digest the cached ones are
    /// tried first, miss, and the local headers cost one more request.
    @Test(arguments: [("none", "crc32", 2), ("pin", "pin", 3), ("digest", "digest", 3)])
    func infoZipBundlesGiveTheServersExactBytes(proof: String, evidence: String, requests: Int) async throws {
        let site = try await DeltaSite.start(DeltaSite.bundle(), query: proof == "digest" ? "&digest=sha-256" : "")
        let bundle = InfoZipBundle(site: site)
        var files = DeltaSite.bundle()
        let first = try await bundle.publish(files)
        let cold = try await site.prefetch(pin: proof == "pin" ? Self.pin(first) : nil)
        #expect(cold.status == 0, "\(cold.stderr)")
        files[0].bytes = DeltaSite.noise(4396, seed: 99)
        let read = Dictionary(uniqueKeysWithValues: files[1...5].map { ($0.name, "2026-03-02 09:00:00") })
        let zip = try await bundle.publish(files, modified: ["index.html": "2026-03-02 08:00:00"], accessed: read)
        site.server.resetLog()
        let run = try await site.prefetch(pin: proof == "pin" ? Self.pin(zip) : nil)
        #expect(run.status == 0, "\(proof): \(run.stderr)")
        let report = try run.report()
        let asset = try #require(report.asset(site.bundleURL))
        #expect(asset.delta_fallback == nil, "\(proof)")
        #expect(asset.delta_evidence == evidence, "\(proof)")
        #expect(asset.sha256 == DeltaRefreshTests.sha256(zip), "\(proof)")
        #expect(asset.delta?.requests == requests, "\(proof)")
        #expect(site.server.requests().allSatisfy { $0.status == 206 }, "\(proof)")
        try site.expectTree(report, files)
        #expect(try await CommandRunner.prefetch(["verify", "--cache-dir", site.cache]).status == 0)
        print("delta info-zip \(proof): zip \(zip.count) B, fetched \(asset.delta?.fetched_bytes ?? -1) B, \(requests) requests")
        try await site.server.stop()
    }

    /// With a digest the cached local headers are reused: a one-file change
    /// costs the tail and one plain range, whatever the digest's algorithm.
    @Test(arguments: ["sha-256", "sha-512", "x-goog-hash"])
    func aDigestProvesAOneFileChangeOfTheTailAndOneRange(digest: String) async throws {
        let (site, files, zip, run) = try await DeltaRefreshTests.refreshed(
            { $0[0].bytes = DeltaSite.noise(4396, seed: 99) }, query: "&digest=\(digest)")
        #expect(run.status == 0, "\(run.stderr)")
        let report = try run.report()
        let asset = try #require(report.asset(site.bundleURL))
        #expect(asset.delta_fallback == nil, "\(digest)")
        #expect(asset.delta_evidence == "digest", "\(digest)")
        #expect(asset.sha256 == DeltaRefreshTests.sha256(zip))
        #expect(asset.delta?.requests == 2, "\(digest)")
        #expect(site.server.requests().map(\.status) == [206, 206])
        #expect(site.server.requests().allSatisfy { !($0.headers["range"] ?? "").contains(",") })
        let bound = DeltaRefreshTests.bound(files, changed: ["index.html"])
        #expect(site.bodyBytes(status: 206) <= bound)
        try site.expectTree(report, files)
        print("delta digest \(digest): zip \(zip.count) B, 206 bodies \(site.bodyBytes(status: 206)) B, bound \(bound) B")
        try await site.server.stop()
    }

    /// A digest that is not of the file the server sends (a stale header):
    /// the rebuild misses it twice, then one full download, which is the
    /// server's file; nothing but the delta is lost.
    @Test func aDigestOfOtherBytesIsOneFullDownload() async throws {
        let (site, files, zip, run) = try await DeltaRefreshTests.refreshed(
            { $0[0].bytes = DeltaSite.noise(4396, seed: 99) }, query: "&digest=wrong")
        #expect(run.status == 0, "\(run.stderr)")
        let report = try run.report()
        let asset = try #require(report.asset(site.bundleURL))
        #expect(asset.delta_fallback == "digest_mismatch")
        #expect(asset.sha256 == DeltaRefreshTests.sha256(zip))
        #expect(site.server.requests().map(\.status) == [206, 206, 206, 200])
        try site.expectTree(report, files)
        try await site.server.stop()
    }
}
