// Kept out of the build until FixtureServer lands: at merge,
//   git mv Tests/Pending/TransferEngineFixtureTests.swift Tests/AssetCacheTests/
// (A *.pending file inside Tests/AssetCacheTests would make SwiftPM warn about an
// unhandled file on every build.) Helpers such as TemporaryDirectory live in
// TransferEngineTests.swift.

import Crypto
import FixtureServer
import Foundation
import Testing

@testable import AssetCache

/// Real libcurl transfers against the project's fixture server on loopback.
@Suite struct TransferEngineFixtureTests {
    /// A served folder with one known file, and a server over it.
    struct Fixture {
        let root: TemporaryDirectory
        let output: TemporaryDirectory
        let server: FixtureServer
        let body: [UInt8]

        static func start(size: Int = 200_000) async throws -> Fixture {
            let root = try TemporaryDirectory()
            var generator = SystemRandomNumberGenerator()
            let body = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
            try Data(body).write(to: URL(fileURLWithPath: root.path + "/a.png"))
            let server = try await FixtureServer.start(root: root.path)
            return Fixture(root: root, output: try TemporaryDirectory(), server: server, body: body)
        }

        func request(_ target: String, priority: Int = 0, headers: [String] = []) -> TransferRequest {
            TransferRequest(
                url: server.url(target), destination: output.path + "/" + UUID().uuidString,
                priority: priority, headers: headers
            )
        }
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        SHA256.hash(data: Array(bytes)).map { String(format: "%02x", $0) }.joined()
    }

    static func fileBytes(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { Array($0) }
    }

    @Test func downloadWritesExactBytesAndTheirSHA256() async throws {
        let fixture = try await Fixture.start()
        let engine = try TransferEngine()
        defer { engine.shutdown() }
        let request = fixture.request("a.png")

        let result = await engine.fetch(request)

        #expect(result.failure == nil)
        #expect(result.status == 200)
        #expect(result.attempts == 1)
        #expect(result.bytes == Int64(fixture.body.count))
        #expect(Self.fileBytes(request.destination) == fixture.body)
        #expect(result.sha256 == Self.hex(fixture.body))
        #expect(result.effectiveURL == request.url)
        #expect(fixture.server.requests().first?.headers["user-agent"] == Transfer.userAgent)
        #expect(fixture.server.requests().first?.headers["accept-encoding"] == nil)
        try await fixture.server.stop()
    }

    @Test func concurrentTransfersStayWithinTheLimit() async throws {
        let fixture = try await Fixture.start(size: 1000)
        var limits = TransferLimits()
        limits.concurrency = 4
        limits.perHost = 8
        let engine = try TransferEngine(limits: limits)
        defer { engine.shutdown() }
        let requests = (0..<30).map { fixture.request("a.png?delay_ms=150&n=\($0)") }

        let results = await withTaskGroup(of: TransferResult.self) { group in
            for request in requests { group.addTask { await engine.fetch(request) } }
            return await group.reduce(into: []) { $0.append($1) }
        }

        #expect(results.count == 30 && results.allSatisfy { $0.failure == nil })
        #expect(fixture.server.peakInFlight > 1)
        #expect(fixture.server.peakInFlight <= 4)
        try await fixture.server.stop()
    }

    @Test func endlessBodyStopsAtTheSizeCap() async throws {
        let fixture = try await Fixture.start()
        var limits = TransferLimits()
        limits.maxAssetSize = 256 * 1024
        let engine = try TransferEngine(limits: limits)
        defer { engine.shutdown() }
        let request = fixture.request("a.png?endless=1")

        let result = await engine.fetch(request)

        #expect(result.failure?.kind == .tooLarge)
        #expect(result.failure?.message.contains("256 KiB") == true)
        #expect(result.attempts == 1)
        #expect(result.bytes <= limits.maxAssetSize)
        #expect((Self.fileBytes(request.destination)?.count ?? 0) <= 256 * 1024)
        try await fixture.server.stop()
    }

    @Test func declaredLengthOverTheCapFailsBeforeTheBody() async throws {
        let fixture = try await Fixture.start(size: 300_000)
        var limits = TransferLimits()
        limits.maxAssetSize = 100_000
        let engine = try TransferEngine(limits: limits)
        defer { engine.shutdown() }

        let result = await engine.fetch(fixture.request("a.png"))

        #expect(result.failure?.kind == .tooLarge)
        #expect(result.attempts == 1)
        try await fixture.server.stop()
    }

    @Test func truncatedBodyIsRetriedThenFailsAsNetwork() async throws {
        let fixture = try await Fixture.start()
        let engine = try TransferEngine()
        defer { engine.shutdown() }

        let result = await engine.fetch(fixture.request("a.png?truncate=1000"))

        #expect(result.failure?.kind == .network)
        #expect(result.attempts == 4)
        // And a HEAD after each: the link watch's probe (LinkProbe), no attempt.
        #expect(fixture.server.requests().filter { $0.method == "GET" }.count == 4)
        try await fixture.server.stop()
    }

    @Test func notFoundFailsAtOnce() async throws {
        let fixture = try await Fixture.start()
        let engine = try TransferEngine()
        defer { engine.shutdown() }

        let result = await engine.fetch(fixture.request("missing.png"))

        #expect(result.failure?.kind == .httpStatus)
        #expect(result.failure?.message.hasPrefix("HTTP 404 from ") == true)
        #expect(result.status == 404)
        #expect(result.attempts == 1)
        #expect(fixture.server.requests().count == 1)
        try await fixture.server.stop()
    }

    @Test func transientFailuresAreRetriedUntilSuccess() async throws {
        let fixture = try await Fixture.start()
        let engine = try TransferEngine()
        defer { engine.shutdown() }
        let request = fixture.request("a.png?fail_first=2&fail_status=503")

        let result = await engine.fetch(request)

        #expect(result.failure == nil)
        #expect(result.status == 200)
        #expect(result.attempts == 3)
        #expect(fixture.server.requests().map(\.status) == [503, 503, 200])
        #expect(Self.fileBytes(request.destination) == fixture.body)
        #expect(result.sha256 == Self.hex(fixture.body))
        try await fixture.server.stop()
    }

    @Test func retryAfterIsHonouredAndTooLongOnesFailNow() async throws {
        let fixture = try await Fixture.start()
        let engine = try TransferEngine()
        defer { engine.shutdown() }

        let started = ContinuousClock.now
        let honoured = await engine.fetch(fixture.request("a.png?fail_first=1&fail_status=429&retry_after=1"))
        let waited = ContinuousClock.now - started
        let refused = await engine.fetch(fixture.request("a.png?status=503&retry_after=120"))

        #expect(honoured.failure == nil && honoured.attempts == 2)
        #expect(waited >= .milliseconds(900))
        #expect(refused.failure?.kind == .httpStatus && refused.attempts == 1)
        try await fixture.server.stop()
    }

    @Test func redirectLoopFailsAsRedirects() async throws {
        let fixture = try await Fixture.start()
        let engine = try TransferEngine()
        defer { engine.shutdown() }

        let result = await engine.fetch(fixture.request("a.png?redirect_loop=1"))

        #expect(result.failure?.kind == .redirects)
        #expect(result.attempts == 1)
        #expect(fixture.server.requests().count == TransferLimits().maxRedirects + 1)
        try await fixture.server.stop()
    }

    @Test func redirectToFTPIsRefused() async throws {
        let fixture = try await Fixture.start()
        let engine = try TransferEngine()
        defer { engine.shutdown() }

        let result = await engine.fetch(fixture.request("a.png?redirect=ftp%3A%2F%2F127.0.0.1%2Fa.png"))

        #expect(result.failure?.kind == .unsupportedScheme)
        #expect(result.attempts == 1)
        try await fixture.server.stop()
    }

    @Test func redirectBodiesAndHeadersDoNotLeakIntoTheResult() async throws {
        let fixture = try await Fixture.start()
        let engine = try TransferEngine()
        defer { engine.shutdown() }
        let request = fixture.request("elsewhere?redirect=%2Fa.png%3Fcache_control%3Dmax-age%3D60")

        let result = await engine.fetch(request)

        #expect(result.failure == nil)
        #expect(result.effectiveURL.hasSuffix("/a.png?cache_control=max-age=60"))
        #expect(result.headers["Location"] == nil)
        #expect(result.headers.cacheControl == "max-age=60")
        #expect(Self.fileBytes(request.destination) == fixture.body)
        try await fixture.server.stop()
    }

    @Test func conditionalRequestGetsNotModified() async throws {
        let fixture = try await Fixture.start()
        let engine = try TransferEngine()
        defer { engine.shutdown() }
        let first = await engine.fetch(fixture.request("a.png"))
        let etag = try #require(first.headers.etag)

        let second = await engine.fetch(fixture.request("a.png", headers: ["If-None-Match: \(etag)"]))

        #expect(second.status == 304)
        #expect(second.failure == nil)
        #expect(second.bytes == 0)
        #expect(fixture.server.requests().last?.headers["if-none-match"] == etag)
        try await fixture.server.stop()
    }

    @Test func stalledBodyTimesOut() async throws {
        let fixture = try await Fixture.start()
        var limits = TransferLimits()
        limits.stallTimeout = 1
        limits.retries = 0
        let engine = try TransferEngine(limits: limits)
        defer { engine.shutdown() }

        let result = await engine.fetch(fixture.request("a.png?stall_after=1000"))

        #expect(result.failure?.kind == .timeout)
        #expect(result.attempts == 1)
        try await fixture.server.stop()
    }

    @Test func higherPriorityStartsBeforeLowerWhileTheSlotIsBusy() async throws {
        let fixture = try await Fixture.start(size: 1000)
        var limits = TransferLimits()
        limits.concurrency = 1
        let engine = try TransferEngine(limits: limits)
        defer { engine.shutdown() }
        // The blocker holds the only slot long enough for every other request to be
        // queued behind it; the queue must then hand out the high ones first.
        let blocker = fixture.request("a.png?delay_ms=1500&name=blocker", priority: 100)
        let low = (0..<3).map { fixture.request("a.png?name=low\($0)", priority: 0) }
        let high = (0..<3).map { fixture.request("a.png?name=high\($0)", priority: 5) }

        await withTaskGroup(of: Void.self) { group in
            group.addTask { _ = await engine.fetch(blocker) }
            for request in low + high {
                group.addTask { _ = await engine.fetch(request) }
            }
        }

        let order = fixture.server.requests().compactMap { $0.query?.split(separator: "name=").last.map(String.init) }
        #expect(order.first == "blocker")
        #expect(Set(order.dropFirst().prefix(3)) == ["high0", "high1", "high2"])
        #expect(Set(order.suffix(3)) == ["low0", "low1", "low2"])
        try await fixture.server.stop()
    }

    @Test func connectionResetIsNetworkFailure() async throws {
        let fixture = try await Fixture.start()
        let engine = try TransferEngine()
        defer { engine.shutdown() }

        let result = await engine.fetch(fixture.request("a.png?reset=1"))

        #expect(result.failure?.kind == .network)
        #expect(result.attempts == 4)
        try await fixture.server.stop()
    }

    @Test func unwritableDestinationIsStorageFailure() async throws {
        let fixture = try await Fixture.start()
        let engine = try TransferEngine()
        defer { engine.shutdown() }
        var request = fixture.request("a.png")
        request.destination = "/dev/full"

        let result = await engine.fetch(request)

        #expect(result.failure?.kind == .storage)
        #expect(result.failure?.message.contains("/dev/full") == true)
        #expect(result.failure?.message.contains("errno 28") == true)
        #expect(result.attempts == 1)
        try await fixture.server.stop()
    }
}
