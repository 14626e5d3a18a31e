import FixtureServer
import Foundation
import Testing

/// Issue 30's server matrix and hostile range answers, through the real
/// binary: each server kind ends with the new ZIP's tree, by delta or by one
/// full download, and the cache verify-clean. The modes are the fixture
/// server's query parameters (notes: "ranges", multipart answers); these
/// tests run where the fixture server answers several ranges with
/// `multipart/byteranges`, and are skipped by a server that cannot.
@Suite(.enabled("the fixture server answers several ranges as multipart/byteranges") { await DeltaSite.serverSpeaksMultipart() })
struct DeltaServerMatrixTests {
    /// The bundle cached, `index.html` changed, and the next run's report.
    static func refresh(query: String) async throws -> (DeltaSite, DeltaSite.Files, Report) {
        let (site, files, _, run) = try await DeltaRefreshTests.refreshed({ $0[0].bytes = DeltaSite.noise(4396, seed: 99) }, query: query)
        #expect(run.status == 0, "\(query): \(run.stderr)")
        let report = try run.report()
        #expect(report.message("bundle")?.verdict == "ready", "\(query)")
        try site.expectTree(report, files)
        #expect(try await CommandRunner.prefetch(["verify", "--cache-dir", site.cache]).status == 0, "\(query)")
        return (site, files, report)
    }

    /// One file changed, behind a `Repr-Digest`: the cached local headers of
    /// the others are reused with their data (the digest proves the rebuild),
    /// so the tail and one range of the changed entry — a plain 206 — are all
    /// any of these servers is asked.
    /// ``sameFilesOfAnotherDateFetchEveryLocalHeader(query:maxRequests:)``
    /// asks them for many ranges, as does any change without a pin or a digest.
    @Test(arguments: [
        // Multipart (nginx's default).
        "",
        // S3: one range a request.
        "&ranges=first",
        // nginx's max_ranges 2: the whole file to more.
        "&max_ranges=2",
        // 416 to several ranges.
        "&ranges=416multi",
    ])
    func everyServerGivesTheTreeByDelta(query: String) async throws {
        let (site, files, report) = try await Self.refresh(query: query + "&digest=sha-256")
        let asset = try #require(report.asset(site.bundleURL))
        #expect(asset.delta_fallback == nil, "\(query)")
        #expect(asset.delta_evidence == "digest", "\(query)")
        let delta = try #require(asset.delta, "\(query)")
        #expect(delta.requests == 2, "\(query)")
        #expect(site.server.requests().map(\.status) == [206, 206], "\(query)")
        #expect(delta.fetched_bytes <= DeltaRefreshTests.bound(files, changed: ["index.html"]), "\(query)")
        print("delta matrix \(query.isEmpty ? "multipart" : query): fetched \(delta.fetched_bytes) B, \(delta.requests) requests, "
            + "downloaded_bytes \(report.totals.downloaded_bytes)")
        try await site.server.stop()
    }

    /// The same files written on another date: every record differs from the
    /// cached one in its date (rule b), so only the entries' data is reused
    /// and all 40 local headers are fetched — 40 ranges, in one multipart
    /// request or down the ladder (255, 7, 2, 1 a request) from a server that
    /// answers fewer — and the tree is still the new ZIP's.
    @Test(arguments: [
        ("", 2),
        ("&ranges=first", 60),
        ("&max_ranges=2", 40),
        ("&ranges=416multi", 60),
    ])
    func sameFilesOfAnotherDateFetchEveryLocalHeader(query: String, maxRequests: Int) async throws {
        let files = DeltaSite.bundle()
        let site = try await DeltaSite.start(files, query: query)
        #expect(try await site.prefetch().status == 0)
        let zip = try site.publish(files, date: 0x5821)
        site.server.resetLog()
        let run = try await site.prefetch()
        #expect(run.status == 0, "\(query): \(run.stderr)")
        let report = try run.report()
        let asset = try #require(report.asset(site.bundleURL))
        #expect(asset.delta_fallback == nil, "\(query)")
        #expect(asset.delta_evidence == "crc32", "\(query)")
        #expect(asset.sha256 == DeltaRefreshTests.sha256(zip), "\(query)")
        let delta = try #require(asset.delta, "\(query)")
        let localHeaders = files.reduce(0) { $0 + 30 + $1.name.utf8.count }
        #expect(delta.fetched_bytes >= localHeaders && delta.fetched_bytes < zip.count / 20, "\(query)")
        #expect(delta.reused_bytes <= zip.count - localHeaders, "\(query)")
        #expect(delta.requests <= maxRequests, "\(query)")
        try site.expectTree(report, files)
        #expect(try await CommandRunner.prefetch(["verify", "--cache-dir", site.cache]).status == 0, "\(query)")
        print("delta redated \(query.isEmpty ? "multipart" : query): fetched \(delta.fetched_bytes) B, \(delta.requests) requests")
        try await site.server.stop()
    }

    @Test func aServerIgnoringRangesGivesTheWholeFileOnce() async throws {
        let (site, _, report) = try await Self.refresh(query: "&ranges=ignore")
        let asset = try #require(report.asset(site.bundleURL))
        #expect(asset.delta_fallback == "whole_file")
        // The tail request's 200 was the full download: nothing asked twice.
        #expect(site.server.requests().count == 1)
        #expect(report.totals.downloaded_bytes == asset.bytes)
        try await site.server.stop()
    }

    /// `then=`/`after=`: the route serves another file once one request was
    /// answered after the log's reset (which resets the count), so the file
    /// changes between the tail and the ranges.
    @Test func aFileChangedBetweenTheTailAndTheRangesIsTakenWholeFromIfRange() async throws {
        let old = DeltaSite.bundle()
        let site = try await DeltaSite.start(old, query: "&then=bundle3.zip&after=1")
        #expect(try await site.prefetch().status == 0)
        var second = old
        second[0].bytes = DeltaSite.noise(4396, seed: 99)
        try site.publish(second)
        var third = old
        third[5].bytes = DeltaSite.noise(5000, seed: 123)
        try StoredZip.make(third).write(to: URL(fileURLWithPath: site.scratch.path("site/bundle3.zip")))
        site.server.resetLog()
        let run = try await site.prefetch()
        #expect(run.status == 0, "\(run.stderr)")
        let report = try run.report()
        #expect(report.asset(site.bundleURL)?.delta_fallback == "whole_file")
        try site.expectTree(report, third)
        try await site.server.stop()
    }

    /// A ZIP served with `Content-Encoding: gzip` though no request asked for
    /// it (a misconfigured CDN): libcurl decodes it to the ZIP, but its ranges
    /// count gzip bytes, so the delta gives way to one full download.
    @Test func aGzippedZipIsDecodedAndFetchedWhole() async throws {
        let (site, _, report) = try await Self.refresh(query: "&gzip=1")
        let asset = try #require(report.asset(site.bundleURL))
        #expect(asset.delta_fallback == "content_encoding")
        let requests = site.server.requests()
        #expect(requests.filter { $0.headers["range"] == nil }.count == 1)
        #expect(requests.allSatisfy { $0.headers["accept-encoding"] == nil })
        print("delta matrix gzip=1: \(requests.count) requests, \(requests.reduce(0) { $0 + $1.bodyBytes }) body bytes sent, "
            + "downloaded_bytes \(report.totals.downloaded_bytes) (decoded)")
        try await site.server.stop()
    }

    @Test func aServerWithoutAcceptRangesIsDownloadedWhole() async throws {
        let (site, _, report) = try await Self.refresh(query: "&accept_ranges=0")
        #expect(report.asset(site.bundleURL)?.delta == nil)
        #expect(site.server.requests().allSatisfy { $0.headers["range"] == nil })
        try await site.server.stop()
    }

    @Test(arguments: [
        ("&bad_range=mismatch", ["range_mismatch"]),
        // The extra part makes the answer longer than the ranges asked: stopped
        // at that bound.
        ("&bad_range=overlap", ["multipart_invalid", "range_mismatch", "request_failed"]),
        ("&bad_range=past_end", ["multipart_invalid", "range_mismatch"]),
        ("&bad_range=endless", ["multipart_invalid", "range_mismatch", "request_failed"]),
        // Framing bounded by the boundary the header names: a longer one in the
        // body may pass the answer's length bound first.
        ("&bad_range=garbled", ["multipart_invalid", "request_failed"]),
    ])
    func aBadRangeAnswerFallsBackToOneFullDownload(query: String, reasons: [String]) async throws {
        let (site, _, report) = try await Self.refresh(query: query)
        let asset = try #require(report.asset(site.bundleURL))
        #expect(reasons.contains(asset.delta_fallback ?? ""), "\(query): \(asset.delta_fallback ?? "no fallback")")
        #expect(site.server.requests().filter { $0.headers["range"] == nil }.count == 1, "\(query)")
        try await site.server.stop()
    }
}
