import FixtureServer
import Foundation
import Testing

/// The real `prefetch` binary against the real fixture server on loopback.
@Suite struct PrefetchRunTests {
    func run(_ triggers: [[String: Any]], scratch: Scratch, integrity: [String: String] = [:]) async throws -> (CommandResult, Report) {
        let manifest = try scratch.write("manifest.json", try manifestJSON(triggers, integrity: integrity))
        let result = try await CommandRunner.prefetch(["run", manifest, "--cache-dir", scratch.path("cache"), "--json"], in: scratch.url)
        return (result, try result.report())
    }

    @Test func downloadsFiftyAssetsConcurrently() async throws {
        let scratch = try Scratch()
        let server = try await FixtureServer.start(root: Package.assets.path)
        let triggers = (0..<60).map { index in
            inapp("m\(index)", ["type": "MODAL", "image_url": server.url("img/rgb.png?n=\(index)&delay_ms=100")])
        }
        let (result, report) = try await run(triggers, scratch: scratch)
        let requests = server.requests()
        try await server.stop()

        #expect(result.status == 0, "\(result.stderr)")
        #expect(report.totals.ready == 60)
        #expect(requests.filter { $0.method == "GET" }.count == 60)
        #expect(server.peakInFlight > 1)
        #expect(server.peakInFlight <= 8)
    }

    @Test func identicalBytesUnderTwoURLsAreStoredOnce() async throws {
        let scratch = try Scratch()
        let server = try await FixtureServer.start(root: Package.assets.path)
        let (result, report) = try await run([
            inapp("a", ["type": "MODAL", "image_url": server.url("img/rgb.png")]),
            inapp("b", ["type": "MODAL", "image_url": server.url("img/rgb-copy.png")]),
        ], scratch: scratch)
        try await server.stop()

        #expect(result.status == 0)
        let a = try #require(report.asset(server.url("img/rgb.png")))
        let b = try #require(report.asset(server.url("img/rgb-copy.png")))
        #expect(a.sha256 == b.sha256)
        #expect(a.path == b.path)
        let objects = scratch.listing("cache/objects").filter { $0.contains("/") }
        #expect(objects == ["\(a.sha256!.prefix(2))/\(a.sha256!)"])
    }

    @Test func sharedAssetIsFetchedOnce() async throws {
        let scratch = try Scratch()
        let server = try await FixtureServer.start(root: Package.assets.path)
        let url = server.url("img/palette.png")
        let (_, report) = try await run([
            inapp("a", ["type": "MODAL", "image_url": url]),
            inapp("b", ["type": "FULL", "image_url": url]),
        ], scratch: scratch)
        let requests = server.requests()
        try await server.stop()

        #expect(report.totals.ready == 2)
        #expect(report.assets.count == 1)
        #expect(requests.count == 1)
    }

    @Test(arguments: [
        ("img/rgba.png?truncate=100", "network"),
        ("img/missing.png", "http_status"),
        ("img/rgba.png?reset=1", "network"),
    ])
    func transferFailuresDiscardTheMessage(path: String, kind: String) async throws {
        let scratch = try Scratch()
        let server = try await FixtureServer.start(root: Package.assets.path)
        let (result, report) = try await run([
            inapp("broken", ["type": "FULL", "image_url": server.url(path)]),
            inapp("good", ["type": "FULL", "image_url": server.url("img/rgb.png")]),
        ], scratch: scratch)
        try await server.stop()

        #expect(result.status == 1)
        #expect(report.message("broken")?.verdict == "discarded:asset_download_failed")
        #expect(report.asset(server.url(path))?.error?.kind == kind)
        #expect(report.message("good")?.status == "ready")
    }

    @Test(arguments: [
        ("corrupt", ["type": "MODAL", "image_url": "img/corrupt-crc.png"], "invalid_image"),
        ("slip", ["type": "HTML_FULL", "zipped_assets_url": "html/slip.zip"], "unsafe_archive"),
    ])
    func invalidContentIsDiscardedAndNothingLeavesTheCache(id: String, data: [String: String], kind: String) async throws {
        let scratch = try Scratch()
        let server = try await FixtureServer.start(root: Package.assets.path)
        let resolved = data.mapValues { $0.hasPrefix("img/") || $0.hasPrefix("html/") ? server.url($0) : $0 }
        let (result, report) = try await run([inapp(id, resolved)], scratch: scratch)
        try await server.stop()

        #expect(result.status == 1)
        #expect(report.message(id)?.verdict == "discarded:asset_invalid")
        #expect(report.message(id)?.detail?.hasPrefix("\(kind): ") == true)
        #expect(scratch.listing().allSatisfy { $0 == "manifest.json" || $0 == "cache" || $0.hasPrefix("cache/") })
        #expect(!scratch.listing().contains { $0.hasSuffix("evil.txt") })
        #expect(scratch.listing("cache/tmp").isEmpty)
        #expect(scratch.listing("cache/trees").isEmpty)
    }
}
