import Crypto
import FixtureServer
import Foundation
import Testing

/// Issue 30 through the real binary: a changed HTML bundle whose server takes
/// range requests is refreshed by delta — its tail, then only what the cached
/// copy lacks — and unpacks to exactly the new ZIP's files; what a delta
/// cannot do well falls back to one full download in the same run.
@Suite struct DeltaRefreshTests {
    /// What a delta of the bundle may move: the changed entries, the central
    /// directory and every local header, plus 10 %.
    static func bound(_ files: DeltaSite.Files, changed: [String]) -> Int {
        let names = files.reduce(0) { $0 + $1.name.utf8.count }
        let central = 46 * files.count + names + 22
        let localHeaders = 30 * files.count + names
        let entries = files.filter { changed.contains($0.name) }.reduce(0) { $0 + $1.bytes.count }
        return Int(Double(entries + central + localHeaders) * 1.1)
    }

    static func sha256(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    /// A first run caches the bundle; `change` makes the next version.
    static func refreshed(
        _ change: (inout DeltaSite.Files) -> Void, query: String = "", extra: (DeltaSite) -> [String] = { _ in [] }
    ) async throws -> (DeltaSite, DeltaSite.Files, Data, CommandResult) {
        let old = DeltaSite.bundle()
        let site = try await DeltaSite.start(old, query: query)
        let first = try await site.prefetch()
        #expect(first.status == 0, "\(first.stderr)")
        var new = old
        change(&new)
        let zip = try site.publish(new)
        site.server.resetLog()
        return (site, new, zip, try await site.prefetch(extra(site)))
    }

    @Test func oneChangedFileFetchesThatFileNotTheZip() async throws {
        let (site, files, zip, run) = try await Self.refreshed(
            { $0[0].bytes = DeltaSite.noise(4396, seed: 99) }, extra: { ["--metrics-file", $0.scratch.path("prefetch.prom")] })
        #expect(run.status == 0, "\(run.stderr)")
        let report = try run.report()
        let asset = try #require(report.asset(site.bundleURL))
        #expect(asset.outcome == "downloaded")
        #expect(asset.delta_fallback == nil)
        // No pin, no digest: only the reused entries' data rests on its CRC-32.
        #expect(asset.delta_evidence == "crc32")
        let delta = try #require(asset.delta)
        // Byte for byte the new ZIP, not merely its files.
        #expect(asset.sha256 == Self.sha256(zip))
        #expect(asset.bytes == zip.count)
        // Issue 37's bound: the file's bytes the 206 answers carried, within
        // the changed entry, the central directory and every local header
        // + 10 %, + 2 KiB.
        let bound = Self.bound(files, changed: ["index.html"])
        #expect(site.fileBytes() <= bound + 2048)
        // On the wire, each part of a multipart answer adds its framing
        // (boundary, Content-Type, Content-Range: about 110 bytes here).
        let parts = site.server.requests().reduce(0) { $0 + ($1.headers["range"] ?? "").split(separator: ",").count }
        #expect(site.bodyBytes(status: 206) <= site.fileBytes() + 128 * parts)
        #expect(delta.fetched_bytes == site.bodyBytes(status: 206))
        #expect(report.totals.downloaded_bytes == delta.fetched_bytes)
        #expect(delta.reused_bytes + delta.fetched_bytes >= zip.count)
        #expect(site.server.requests().allSatisfy { $0.headers["range"] != nil })
        // Every local header is fetched, not taken from the cached ZIP: the
        // tail, then the changed entry and the 39 other local headers in one
        // multipart request.
        #expect(delta.requests == 2)
        #expect(site.server.requests().map(\.status) == [206, 206])
        try site.expectTree(report, files)
        #expect(try await CommandRunner.prefetch(["verify", "--cache-dir", site.cache]).status == 0)
        let metrics = try PrometheusText(String(contentsOfFile: site.scratch.path("prefetch.prom"), encoding: .utf8))
        #expect(metrics.series("prefetch_delta_saved_bytes_total").first?.value == Double(zip.count - delta.fetched_bytes))
        print("delta one-file: zip \(zip.count) B, fetched \(delta.fetched_bytes) B (206 bodies \(site.bodyBytes(status: 206)) B, "
            + "of the file \(site.fileBytes()) B in \(parts) ranges), reused \(delta.reused_bytes) B, \(delta.requests) requests, "
            + "bound \(bound) B + 2048 B")
        try await site.server.stop()
    }

    @Test func addedRemovedAndRenamedFilesGiveTheNewTree() async throws {
        let changes: [(String, (inout DeltaSite.Files) -> Void)] = [
            ("added", { $0.insert(("assets/new.bin", DeltaSite.noise(3000, seed: 5)), at: 20) }),
            ("removed", { $0.remove(at: 10) }),
            ("renamed", { $0[15].name = "assets/renamed-part.bin" }),
        ]
        for (label, change) in changes {
            let (site, files, zip, run) = try await Self.refreshed(change)
            #expect(run.status == 0, "\(label): \(run.stderr)")
            let report = try run.report()
            let asset = try #require(report.asset(site.bundleURL))
            #expect(asset.sha256 == Self.sha256(zip), "\(label)")
            #expect(asset.delta_fallback == nil, "\(label)")
            try site.expectTree(report, files)
            let fetched = asset.delta?.fetched_bytes ?? -1
            // A rename moves the entry's bytes under a new name: fetched again.
            #expect(fetched >= 0 && fetched < zip.count / 10, "\(label): \(fetched)")
            print("delta \(label): zip \(zip.count) B, fetched \(fetched) B, requests \(asset.delta?.requests ?? 0)")
            try await site.server.stop()
        }
    }

    @Test func everyFileChangedFallsBackWithinATenthMore() async throws {
        let (site, files, zip, run) = try await Self.refreshed { files in
            for index in files.indices { files[index].bytes = DeltaSite.noise(files[index].bytes.count, seed: 1000 + UInt64(index)) }
        }
        #expect(run.status == 0, "\(run.stderr)")
        let report = try run.report()
        let asset = try #require(report.asset(site.bundleURL))
        #expect(asset.delta_fallback == "too_costly")
        #expect(asset.sha256 == Self.sha256(zip))
        #expect(report.totals.downloaded_bytes <= Int(Double(zip.count) * 1.1))
        try site.expectTree(report, files)
        print("delta all-changed: zip \(zip.count) B, downloaded \(report.totals.downloaded_bytes) B (\(asset.delta_fallback ?? ""))")
        try await site.server.stop()
    }

    @Test func aPinTheRebuiltBytesMissIsRefusedAndOneFullDownloadTried() async throws {
        let old = DeltaSite.bundle()
        let site = try await DeltaSite.start(old)
        #expect(try await site.prefetch().status == 0)
        var new = old
        new[3].bytes = DeltaSite.noise(2000, seed: 77)
        try site.publish(new)
        site.server.resetLog()
        let wrongPin = "sha256-" + Data(repeating: 0xAB, count: 32).base64EncodedString()
        let run = try await site.prefetch(pin: wrongPin)
        #expect(run.status == 1)
        let report = try run.report()
        let asset = try #require(report.asset(site.bundleURL))
        #expect(asset.delta_fallback == "integrity_mismatch")
        #expect(asset.error?.kind == "integrity_mismatch")
        // The changed entry, then the local headers once the pin was missed,
        // then exactly one request for the whole file.
        #expect(site.server.requests().map(\.status) == [206, 206, 206, 200])
        let whole = site.server.requests().filter { $0.headers["range"] == nil }
        #expect(whole.count == 1)
        #expect(whole.first?.status == 200)

        // The right pin: the delta's bytes are the pinned ones.
        site.server.resetLog()
        let pinned = try await site.prefetch(pin: "sha256-" + Data(SHA256.hash(data: StoredZip.make(new))).base64EncodedString())
        #expect(pinned.status == 0, "\(pinned.stderr)")
        let refreshed = try pinned.report()
        #expect(refreshed.asset(site.bundleURL)?.delta != nil)
        #expect(refreshed.asset(site.bundleURL)?.delta_fallback == nil)
        #expect(refreshed.asset(site.bundleURL)?.delta_evidence == "pin")
        try site.expectTree(refreshed, new)
        try await site.server.stop()
    }

    /// `etag=` makes the server send an ETag it does not match `If-Range`
    /// against: to the client, the file changed after its tail. Several
    /// ranges answered 200 are stopped at the head (the same validator: a
    /// server refusing them); one range answered 200 is the new file, taken
    /// as the full download, not asked for again.
    @Test func aWholeFileAnsweringIfRangeIsTheDownload() async throws {
        let (site, files, zip, run) = try await Self.refreshed({ $0[0].bytes = DeltaSite.noise(4396, seed: 99) }, query: "&etag=%22x%22")
        #expect(run.status == 0, "\(run.stderr)")
        let report = try run.report()
        let asset = try #require(report.asset(site.bundleURL))
        #expect(asset.delta_fallback == "whole_file")
        #expect(asset.sha256 == Self.sha256(zip))
        let requests = site.server.requests()
        #expect(requests.allSatisfy { $0.headers["range"] != nil })
        #expect(requests.filter { $0.status == 200 && !($0.headers["range"] ?? "").contains(",") }.count == 1)
        #expect(report.totals.downloaded_bytes <= Int(Double(zip.count) * 1.1))
        try site.expectTree(report, files)
        try await site.server.stop()
    }

    @Test func noDeltaDownloadsTheZipWhole() async throws {
        let (site, files, zip, run) = try await Self.refreshed({ $0[0].bytes = DeltaSite.noise(4396, seed: 99) }, extra: { _ in ["--no-delta"] })
        #expect(run.status == 0, "\(run.stderr)")
        let report = try run.report()
        #expect(report.asset(site.bundleURL)?.delta == nil)
        #expect(site.server.requests().allSatisfy { $0.headers["range"] == nil })
        #expect(report.totals.downloaded_bytes == zip.count)
        try site.expectTree(report, files)

        // The configuration file's `delta = no` says the same.
        var next = files
        next[1].bytes = DeltaSite.noise(3000, seed: 7)
        try site.publish(next)
        site.server.resetLog()
        let config = try site.scratch.write("prefetch.conf", "delta = no\n")
        let configured = try await site.prefetch(["--config", config])
        #expect(configured.status == 0, "\(configured.stderr)")
        #expect(try configured.report().asset(site.bundleURL)?.delta == nil)
        #expect(site.server.requests().allSatisfy { $0.headers["range"] == nil })
        try await site.server.stop()
    }
}
