import FixtureServer
import Foundation
import Testing

/// Issue 29: a link that drops is not an asset's failure (docs/limits.md,
/// "When the link is down"). The link is bench/linkem.py in front of the
/// fixture server; its `outage` resets every connection and refuses new ones.
@Suite struct LinkDownTests {
    static let size = 2 * 1024 * 1024
    /// The server's pace for the big asset: it is in flight for about eight seconds.
    static let rate = 256 * 1024

    func bigFile(in scratch: Scratch) throws -> Data {
        try writeRandomFile("big.bin", size: Self.size, in: scratch.path("www"))
    }

    /// Runs `arguments` on a fresh cache with the link armed to go down for
    /// `outage` seconds once a quarter of the big asset has crossed it: the
    /// link's own count places the cut mid-body, where a test that watched
    /// for the download and then sent `outage` could be scheduled after the
    /// body had ended on a loaded machine (two `make test` at once did that).
    func runWithOutage(_ scratch: Scratch, manifest: String, link: LinkEmulator, outage: Double, _ arguments: [String]) async throws -> CommandResult {
        try link.outage(afterBytes: Self.size / 4, seconds: outage)
        return try await CommandRunner.prefetch(
            ["run", manifest, "--cache-dir", scratch.path("cache"), "--json", "--log-level", "notice"] + arguments)
    }

    @Test func linkDownAndBackMidTransferResumesWithoutUsingAttempts() async throws {
        let scratch = try Scratch()
        let data = try bigFile(in: scratch)
        // A small send buffer: the log's byte counts follow what left the socket.
        let server = try await FixtureServer.start(root: scratch.path("www"), sendBufferBytes: 16 * 1024) { _ in }
        let link = try await LinkEmulator(upstream: server.port)
        let url = link.url("big.bin?rate=\(Self.rate)")
        let manifest = try scratch.write("m.json", try manifestJSON([inapp("big", ["type": "HTML", "asset_urls": [url]])]))

        let result = try await runWithOutage(scratch, manifest: manifest, link: link, outage: 3, ["--retries", "1"])
        let requests = server.requests()
        try await server.stop()

        #expect(result.status == 0, "\(result.stderr)")
        let report = try result.report()
        #expect(report.message("big")?.status == "ready")
        let path = try #require(report.message("big")?.assets.first?.path)
        #expect(FileManager.default.contents(atPath: path) == data)
        // Resumed where the cut left it: one request with Range and If-Range got a 206.
        #expect(requests.contains { $0.headers["range"] != nil && $0.headers["if-range"] != nil && $0.status == 206 }, "\(requests)")
        let sent = requests.reduce(0) { $0 + $1.bodyBytes }
        #expect(sent >= Self.size && sent <= Self.size + 256 * 1024, "the server sent \(sent) bytes for a \(Self.size)-byte file")
        #expect(report.link?.outages == 1)
        #expect((report.link?.down_seconds ?? 0) > 0)
        #expect(result.stderr.contains("link down: "), "\(result.stderr)")
        #expect(result.stderr.contains("link back after "), "\(result.stderr)")
    }

    @Test func oneHostFailingAloneUsesPerAssetAttempts() async throws {
        let scratch = try Scratch()
        let good = try writeStyleSheets(2, in: scratch.path("good"))
        let other = try writeStyleSheets(1, in: scratch.path("other"), salt: "other")
        let working = try await FixtureServer.start(root: scratch.path("good"))
        let failing = try await FixtureServer.start(root: scratch.path("other"))
        // The failing host answers one asset and resets every request for the
        // other: the link is fine, the failures are that URL's.
        let broken = failing.url("\(other[0])?reset=1")
        let manifest = try scratch.write("m.json", try manifestJSON(
            htmlMessages(good, server: working.url)
                + [inapp("fine", ["type": "HTML", "asset_urls": [failing.url(other[0])]])]
                + [inapp("broken", ["type": "HTML", "asset_urls": [broken]])]))
        // One at a time, in manifest order: the broken asset fails with nothing else in flight.
        let result = try await CommandRunner.prefetch([
            "run", manifest, "--cache-dir", scratch.path("cache"), "--json", "--retries", "2", "--concurrency", "1", "--head-start", "0",
        ])
        let brokenRequests = failing.requests().filter { $0.query == "reset=1" }
        try await working.stop()
        try await failing.stop()

        #expect(result.status == 1, "\(result.stderr)")
        let report = try result.report()
        #expect(report.message("html0")?.status == "ready")
        #expect(report.message("html1")?.status == "ready")
        #expect(report.message("fine")?.status == "ready")
        #expect(report.message("broken")?.verdict == "discarded:asset_download_failed")
        // --retries 2: three attempts, each its own request; libcurl replays
        // the first once on a fresh connection, as it does when a reused
        // keep-alive connection dies before any answer.
        #expect(report.asset(broken)?.attempts == 3)
        #expect((3...4).contains(brokenRequests.count), "\(brokenRequests.map(\.method)) requests")
        #expect(report.asset(broken)?.error?.message.contains("--link-wait") == false)
        #expect(report.link?.outages == 0)
        #expect(!result.stderr.contains("link down"), "\(result.stderr)")
    }

    @Test func linkWaitRunsOutAndFailsTheParkedAssets() async throws {
        let scratch = try Scratch()
        _ = try bigFile(in: scratch)
        let server = try await FixtureServer.start(root: scratch.path("www"))
        let link = try await LinkEmulator(upstream: server.port)
        let url = link.url("big.bin?rate=\(Self.rate)")
        let manifest = try scratch.write("m.json", try manifestJSON([inapp("big", ["type": "HTML", "asset_urls": [url]])]))

        // The link stays down for the rest of the test: the run can end only
        // by its --link-wait running out, however late a busy machine lets it
        // notice the drop (an outage of fixed length could end first, and
        // the resumed transfer would be ready).
        let result = try await runWithOutage(scratch, manifest: manifest, link: link, outage: 3600, ["--link-wait", "2"])
        try await server.stop()

        #expect(result.status == 1, "\(result.stderr)")
        let report = try result.report()
        #expect(report.message("big")?.verdict == "discarded:asset_download_failed")
        let message = try #require(report.asset(url)?.error?.message)
        #expect(message.contains("the link was down for 2 s (--link-wait)"), "\(message)")
        #expect(report.link?.outages == 1)
        #expect(result.stderr.contains("link still down after 2 s (--link-wait)"), "\(result.stderr)")
    }

    /// Issue 37: an outage on any path. Four assets are in flight through the
    /// link, each sent at a pace that keeps it there for seconds, when the
    /// link goes down for 3 s in the way `kind` says (once an eighth of their
    /// bytes crossed it). With `--retries 0`, every message ready says that no
    /// failure inside the outage used an attempt.
    func outageCostsNoAttempts(_ kind: LinkEmulator.Outage, tls: Bool = false) async throws {
        let scratch = try Scratch()
        let size = Self.size / 4
        let files = try (0..<4).map { try writeRandomFile("f\($0).bin", size: size, in: scratch.path("www")) }
        var certificates: TestCertificates?
        if tls { certificates = try await TestCertificates.make(in: scratch) }
        let server = try await FixtureServer.start(
            root: scratch.path("www"),
            tls: certificates.map { FixtureTLS(certificateChainPath: $0.serverCertificate, privateKeyPath: $0.serverKey) })
        let link = try await LinkEmulator(upstream: server.port)
        let urls = (0..<4).map { link.url("f\($0).bin?rate=\(Self.rate / 2)", scheme: tls ? "https" : "http") }
        let manifest = try scratch.write("m.json", try manifestJSON(
            urls.enumerated().map { inapp("m\($0.offset)", ["type": "HTML", "asset_urls": [$0.element]]) }))

        try link.outage(afterBytes: Self.size / 8, seconds: 3, kind: kind)
        let result = try await CommandRunner.prefetch(
            ["run", manifest, "--cache-dir", scratch.path("cache"), "--json", "--log-level", "notice", "--retries", "0"]
                + (certificates.map { ["--cacert", $0.caCertificate] } ?? []))
        let stats = try link.stats()
        try await server.stop()

        #expect(result.status == 0, "\(result.stderr)")
        let report = try result.report()
        #expect(report.totals.ready == 4, "\(result.stderr)")
        for (url, data) in zip(urls, files) {
            let path = try #require(report.asset(url)?.path, "\(url)")
            #expect(FileManager.default.contents(atPath: path) == data)
        }
        #expect(report.link?.outages == 1)
        #expect((report.link?.down_seconds ?? 0) > 0)
        #expect(result.stderr.contains("link down: "), "\(result.stderr)")
        #expect(result.stderr.contains("link back after "), "\(result.stderr)")
        #expect(!result.stderr.contains("retrying "), "\(result.stderr)")
        // The probe met the outage as the transfers did: a bare connect would
        // have got through, and their failures would have been counted.
        switch kind {
        case .gateway: #expect((stats["gateway_answers"] ?? 0) >= 1, "\(stats)")
        case .reset: #expect((stats["resets"] ?? 0) >= 1, "\(stats)")
        case .refuse, .silent: break
        }
    }

    @Test func gatewayAnswering502CostsNoAttempts() async throws {
        try await outageCostsNoAttempts(.gateway)
    }

    @Test func firstHopResettingCostsNoAttempts() async throws {
        try await outageCostsNoAttempts(.reset)
    }

    /// Over TLS a reset cuts the handshake (CURLE_SSL_CONNECT_ERROR with
    /// ECONNRESET): a link-level failure still, not a certificate's.
    @Test func firstHopResettingTLSCostsNoAttempts() async throws {
        try await outageCostsNoAttempts(.reset, tls: true)
    }

    /// Issue 37: a server's 503 for one URL is that URL's, whether it comes
    /// while others are served (at 2 KiB/s they are in flight for two
    /// seconds) or after they are all done: the asset uses its attempts and
    /// the link is never taken for down.
    @Test func oneURLAnswering503UsesItsAttempts() async throws {
        let scratch = try Scratch()
        let names = try writeStyleSheets(4, in: scratch.path("www"))
        let server = try await FixtureServer.start(root: scratch.path("www"))
        let broken = server.url("\(names[0])?status=503")
        let manifest = try scratch.write("m.json", try manifestJSON(
            [inapp("broken", ["type": "HTML", "asset_urls": [broken]])]
                + htmlMessages(Array(names.dropFirst()), server: server.url, query: "?rate=2048")))
        let result = try await CommandRunner.prefetch([
            "run", manifest, "--cache-dir", scratch.path("cache"), "--json", "--log-level", "notice", "--retries", "2",
        ])
        let requests = server.requests()
        try await server.stop()

        #expect(result.status == 1, "\(result.stderr)")
        let report = try result.report()
        #expect(report.totals.ready == 3)
        #expect(report.message("broken")?.verdict == "discarded:asset_download_failed")
        #expect(report.asset(broken)?.attempts == 3)
        #expect(report.asset(broken)?.error?.message.contains("HTTP 503") == true, "\(String(describing: report.asset(broken)?.error))")
        // Three GETs, and no probe: nothing made the link suspect.
        #expect(requests.filter { $0.query == "status=503" }.map(\.method) == ["GET", "GET", "GET"], "\(requests)")
        #expect(report.link?.outages == 0)
        #expect(!result.stderr.contains("link down"), "\(result.stderr)")
    }

    @Test func retryAfterHoldsEveryRequestToThatHost() async throws {
        let scratch = try Scratch()
        let names = try writeStyleSheets(3, in: scratch.path("www"))
        let server = try await FixtureServer.start(root: scratch.path("www"))
        let busy = server.url("\(names[0])?fail_first=1&retry_after=2")
        let manifest = try scratch.write("m.json", try manifestJSON(
            [inapp("busy", ["type": "HTML", "asset_urls": [busy]])]
                + htmlMessages(Array(names.dropFirst()), server: server.url)))
        // One transfer at a time: the others are queued when the 503 comes.
        let result = try await CommandRunner.prefetch([
            "run", manifest, "--cache-dir", scratch.path("cache"), "--json", "--concurrency", "1", "--head-start", "0",
        ])
        let requests = server.requests()
        try await server.stop()

        #expect(result.status == 0, "\(result.stderr)")
        #expect(try result.report().totals.ready == 3)
        let refused = try #require(requests.first { $0.status == 503 }, "\(requests)")
        let later = requests.filter { $0 != refused }
        #expect(later.count == 3)
        // No request to the host started after the 503 and before the instant
        // Retry-After named. One started before it (the queue's order is the
        // scheduler's under load) was not held by it.
        #expect(later.contains { $0.target == refused.target })
        for request in later where request.startedAt > refused.startedAt {
            #expect(request.startedAt >= refused.startedAt + 2, "\(request.target) started \(request.startedAt - refused.startedAt) s after the 503")
        }
    }
}
