import Crypto
import FixtureServer
import Foundation
import Logging
import Testing

@testable import AssetCache

/// Resume with Range/If-Range, partial files left by failures and
/// cancellation, conditional requests: real libcurl transfers against the
/// fixture server on loopback.
@Suite struct TransferResumeTests {
    static let mebibyte = 1 << 20

    /// A served folder and an output folder.
    struct Fixture {
        let root: TemporaryDirectory
        let output: TemporaryDirectory
        let server: FixtureServer

        static func start() async throws -> Fixture {
            let root = try TemporaryDirectory()
            let server = try await FixtureServer.start(root: root.path)
            return Fixture(root: root, output: try TemporaryDirectory(), server: server)
        }

        /// Serves `bytes` as `name`, replacing what was there.
        func serve(_ name: String, _ bytes: [UInt8]) throws {
            try Data(bytes).write(to: URL(fileURLWithPath: root.path + "/" + name))
        }

        func destination(_ name: String = UUID().uuidString) -> String {
            output.path + "/" + name
        }
    }

    /// The same bytes on every run: xorshift64 from `seed`.
    static func deterministicBytes(count: Int, seed: UInt64) -> [UInt8] {
        var state = seed | 1
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var index = 0
            while index < count {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                var word = state
                for _ in 0..<min(8, count - index) {
                    buffer[index] = UInt8(truncatingIfNeeded: word)
                    word >>= 8
                    index += 1
                }
            }
            initialized = count
        }
    }

    static func hex(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }

    static func fileBytes(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { Array($0) }
    }

    static func fileSize(_ path: String) -> Int64 {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        return (attributes?[.size] as? NSNumber)?.int64Value ?? -1
    }

    // MARK: resume

    @Test func stalledDownloadKeepsItsPartialAndResumesWithOnlyTheRemainder() async throws {
        let fixture = try await Fixture.start()
        let body = Self.deterministicBytes(count: 20 * Self.mebibyte, seed: 20)
        try fixture.serve("big.bin", body)
        var limits = TransferLimits()
        limits.stallTimeout = 1
        limits.retries = 0
        let engine = try TransferEngine(limits: limits)
        defer { engine.shutdown() }
        let destination = fixture.destination()

        let interrupted = await engine.fetch(
            TransferRequest(url: fixture.server.url("big.bin?stall_after=10485760"), destination: destination))

        #expect(interrupted.failure?.kind == .timeout)
        #expect(interrupted.status == 200)
        #expect(interrupted.bytes == 10_485_760)
        #expect(Self.fileSize(destination) == interrupted.bytes)
        let etag = try #require(interrupted.headers.etag)
        #expect(interrupted.headers.lastModified != nil)
        #expect(interrupted.resumable == TransferRequest.Resume(offset: interrupted.bytes, validator: etag))
        #expect(interrupted.resumedFrom == nil)
        #expect(Self.fileBytes(destination).map { $0 == Array(body[..<10_485_760]) } == true)
        _ = await fixture.server.waitForRequests(count: 1)
        fixture.server.resetLog()

        let offset = Self.fileSize(destination)
        let resumed = await engine.fetch(TransferRequest(
            url: fixture.server.url("big.bin"), destination: destination,
            resume: .init(offset: offset, validator: etag)))

        #expect(resumed.failure == nil)
        #expect(resumed.status == 206)
        #expect(resumed.attempts == 1)
        #expect(resumed.resumedFrom == offset)
        #expect(resumed.resumable == nil)
        #expect(resumed.bytes == Int64(body.count))
        #expect(resumed.sha256 == Self.hex(body))
        #expect(Self.fileBytes(destination) == body)
        let log = fixture.server.requests()
        #expect(log.count == 1)
        #expect(log.first?.headers["range"] == "bytes=\(offset)-")
        #expect(log.first?.headers["if-range"] == etag)
        #expect(log.first?.status == 206)
        #expect(log.first.map { Int64($0.bodyBytes) } == Int64(body.count) - offset)
        try await fixture.server.stop()
    }

    @Test func ifRangeMismatchAnswersTheWholeNewFile() async throws {
        let fixture = try await Fixture.start()
        let old = Self.deterministicBytes(count: 600_000, seed: 1)
        try fixture.serve("a.bin", old)
        let engine = try TransferEngine()
        defer { engine.shutdown() }
        let first = await engine.fetch(TransferRequest(url: fixture.server.url("a.bin"), destination: fixture.destination()))
        let oldTag = try #require(first.headers.etag)
        let destination = fixture.destination()
        try Data(old[..<250_000]).write(to: URL(fileURLWithPath: destination))
        let new = Self.deterministicBytes(count: 700_000, seed: 2)
        try fixture.serve("a.bin", new)
        fixture.server.resetLog()

        let result = await engine.fetch(TransferRequest(
            url: fixture.server.url("a.bin"), destination: destination,
            resume: .init(offset: 250_000, validator: oldTag)))

        #expect(result.failure == nil)
        #expect(result.status == 200)
        #expect(result.attempts == 1)
        #expect(result.resumedFrom == nil)
        #expect(result.bytes == Int64(new.count))
        #expect(result.sha256 == Self.hex(new))
        #expect(result.headers.etag != oldTag)
        #expect(Self.fileBytes(destination) == new)
        let log = fixture.server.requests()
        #expect(log.map(\.status) == [200])
        #expect(log.first?.headers["if-range"] == oldTag)
        #expect(log.first?.bodyBytes == new.count)
        try await fixture.server.stop()
    }

    @Test func lastModifiedWorksAsTheValidator() async throws {
        let fixture = try await Fixture.start()
        let body = Self.deterministicBytes(count: 300_000, seed: 3)
        try fixture.serve("a.bin", body)
        let engine = try TransferEngine()
        defer { engine.shutdown() }
        let head = await engine.fetch(TransferRequest(url: fixture.server.url("a.bin"), destination: fixture.destination()))
        let lastModified = try #require(head.headers.lastModified)
        let destination = fixture.destination()
        // Bytes past the offset are cut off before appending.
        try Data(body[..<100_000] + [1, 2, 3]).write(to: URL(fileURLWithPath: destination))
        fixture.server.resetLog()

        let result = await engine.fetch(TransferRequest(
            url: fixture.server.url("a.bin"), destination: destination,
            resume: .init(offset: 100_000, validator: lastModified)))

        #expect(result.failure == nil)
        #expect(result.status == 206)
        #expect(result.resumedFrom == 100_000)
        #expect(result.sha256 == Self.hex(body))
        #expect(Self.fileBytes(destination) == body)
        #expect(fixture.server.requests().first?.headers["if-range"] == lastModified)
        try await fixture.server.stop()
    }

    @Test func rangeNotSatisfiableStartsOverWithoutRange() async throws {
        let fixture = try await Fixture.start()
        let body = Self.deterministicBytes(count: 200_000, seed: 4)
        try fixture.serve("a.bin", body)
        var limits = TransferLimits()
        limits.retries = 0
        let engine = try TransferEngine(limits: limits)
        defer { engine.shutdown() }
        let probe = await engine.fetch(TransferRequest(url: fixture.server.url("a.bin"), destination: fixture.destination()))
        let etag = try #require(probe.headers.etag)
        let destination = fixture.destination()
        // A "partial" as long as the file: nothing is left to ask for.
        try Data(body).write(to: URL(fileURLWithPath: destination))
        fixture.server.resetLog()

        let result = await engine.fetch(TransferRequest(
            url: fixture.server.url("a.bin"), destination: destination,
            resume: .init(offset: Int64(body.count), validator: etag)))

        #expect(result.failure == nil)
        #expect(result.status == 200)
        #expect(result.attempts == 2)
        #expect(result.resumedFrom == nil)
        #expect(result.sha256 == Self.hex(body))
        #expect(Self.fileBytes(destination) == body)
        let log = fixture.server.requests()
        #expect(log.map(\.status) == [416, 200])
        #expect(log.last?.headers["range"] == nil)
        #expect(log.last?.headers["if-range"] == nil)
        try await fixture.server.stop()
    }

    @Test func retryAfterAStallContinuesFromTheNewLength() async throws {
        let fixture = try await Fixture.start()
        let body = Self.deterministicBytes(count: Self.mebibyte, seed: 5)
        try fixture.serve("a.bin", body)
        var limits = TransferLimits()
        limits.stallTimeout = 1
        limits.retries = 1
        let engine = try TransferEngine(limits: limits)
        let destination = fixture.destination()

        // The second request stalls too after 600,000 bytes, but only 448,576 remain.
        let result = await engine.fetch(
            TransferRequest(url: fixture.server.url("a.bin?stall_after=600000"), destination: destination))
        engine.shutdown()

        #expect(result.failure == nil)
        #expect(result.status == 206)
        #expect(result.attempts == 2)
        // Nothing was in the file before this fetch.
        #expect(result.resumedFrom == nil)
        #expect(result.sha256 == Self.hex(body))
        #expect(Self.fileBytes(destination) == body)
        // Between the two, the link watch's probe: a HEAD (LinkProbe).
        let log = await fixture.server.waitForRequests(count: 3).filter { $0.method == "GET" }
        #expect(log.map(\.status) == [200, 206])
        #expect(log.last?.headers["range"] == "bytes=600000-")
        #expect(log.last?.headers["if-range"] == result.headers.etag)
        #expect(log.last?.bodyBytes == body.count - 600_000)
        try await fixture.server.stop()
    }

    @Test func theSizeCapCountsTheResumedPrefix() async throws {
        let fixture = try await Fixture.start()
        let body = Self.deterministicBytes(count: 300_000, seed: 6)
        try fixture.serve("a.bin", body)
        let probe = try TransferEngine()
        let etag = try #require(await probe.fetch(TransferRequest(
            url: fixture.server.url("a.bin"), destination: fixture.destination())).headers.etag)
        probe.shutdown()
        var limits = TransferLimits()
        limits.maxAssetSize = 200_000
        let engine = try TransferEngine(limits: limits)
        defer { engine.shutdown() }
        let destination = fixture.destination()
        try Data(body[..<150_000]).write(to: URL(fileURLWithPath: destination))

        let result = await engine.fetch(TransferRequest(
            url: fixture.server.url("a.bin"), destination: destination,
            resume: .init(offset: 150_000, validator: etag)))

        #expect(result.failure?.kind == .tooLarge)
        #expect(result.attempts == 1)
        #expect(result.resumable == nil)
        #expect(Self.fileSize(destination) <= 200_000)
        try await fixture.server.stop()
    }

    @Test func contentRangeIsParsed() {
        #expect(Transfer.parseContentRange("bytes 100-199/200")! == (100, 200))
        #expect(Transfer.parseContentRange("bytes 0-0/*")! == (0, nil))
        #expect(Transfer.parseContentRange("bytes */200") == nil)
        #expect(Transfer.parseContentRange("bytes 100-99/200") == nil)
        #expect(Transfer.parseContentRange("bytes 100-199/150") == nil)
        #expect(Transfer.parseContentRange("items 1-2/3") == nil)
        #expect(Transfer.parseContentRange(nil) == nil)
    }

    @Test func onlyStrongValidatorsAreUsedForIfRange() {
        #expect(Transfer.strongValidator(of: ResponseHeaders(fields: ["ETag": "\"abc\""])) == "\"abc\"")
        #expect(Transfer.strongValidator(of: ResponseHeaders(fields: ["ETag": "W/\"abc\""])) == nil)
        let modified = "Sun, 06 Nov 1994 08:49:37 GMT"
        #expect(Transfer.strongValidator(of: ResponseHeaders(fields: [
            "ETag": "W/\"abc\"", "Last-Modified": modified, "Date": "Sun, 06 Nov 1994 08:49:38 GMT",
        ])) == modified)
        #expect(Transfer.strongValidator(of: ResponseHeaders(fields: ["Last-Modified": modified, "Date": modified])) == nil)
        #expect(Transfer.strongValidator(of: ResponseHeaders(fields: ["Last-Modified": modified])) == modified)
    }

    // MARK: conditional requests

    @Test func notModifiedHasNoBodyNoFileAndItsHeaders() async throws {
        let fixture = try await Fixture.start()
        try fixture.serve("a.png", Self.deterministicBytes(count: 10_000, seed: 7))
        let engine = try TransferEngine()
        defer { engine.shutdown() }
        let target = "a.png?cache_control=max-age%3D60&expires=Thu,%2001%20Jan%202037%2000:00:00%20GMT"
        let first = await engine.fetch(TransferRequest(url: fixture.server.url(target), destination: fixture.destination()))
        let etag = try #require(first.headers.etag)
        let lastModified = try #require(first.headers.lastModified)

        for condition in ["If-None-Match: \(etag)", "If-Modified-Since: \(lastModified)"] {
            let destination = fixture.destination()
            let result = await engine.fetch(
                TransferRequest(url: fixture.server.url(target), destination: destination, headers: [condition]))

            #expect(result.failure == nil)
            #expect(result.status == 304)
            #expect(result.bytes == 0)
            #expect(result.attempts == 1)
            #expect(result.resumable == nil)
            #expect(!FileManager.default.fileExists(atPath: destination))
            #expect(result.headers.etag == etag)
            #expect(result.headers.cacheControl == "max-age=60")
            #expect(result.headers.expires == "Thu, 01 Jan 2037 00:00:00 GMT")
            #expect(result.headers.date != nil)
        }
        #expect(fixture.server.requests().map(\.status) == [200, 304, 304])
        #expect(fixture.server.requests().map(\.bodyBytes) == [10_000, 0, 0])
        try await fixture.server.stop()
    }

    // MARK: cancellation

    @Test func cancelAllEndsEveryTransferAndKeepsResumablePartials() async throws {
        let fixture = try await Fixture.start()
        let body = Self.deterministicBytes(count: 2 * Self.mebibyte, seed: 8)
        try fixture.serve("a.bin", body)
        var limits = TransferLimits()
        limits.concurrency = 2
        // Far beyond the test: however slowly a loaded machine gets to the
        // cancel, the two in flight are still in flight.
        limits.stallTimeout = 600
        let engine = try TransferEngine(limits: limits)
        defer { engine.shutdown() }
        // Two in flight, stalled after their first 100,000 bytes, then two queued behind them.
        var requests = (0..<4).map { index in
            TransferRequest(
                url: fixture.server.url("a.bin?stall_after=100000&n=\(index)"), destination: fixture.destination("out\(index)"))
        }
        var flowing: [Task<Void, Never>] = []
        for index in 0..<2 {
            let (started, signal) = AsyncStream<Void>.makeStream()
            requests[index].observer = TransferObserver(logger: Logger(label: "test")) { signal.yield(()); signal.finish() }
            flowing.append(Task { for await _ in started {} })
        }
        var tasks = requests[..<2].map { request in Task { await engine.fetch(request) } }
        for task in flowing { await task.value }
        tasks += requests[2...].map { request in Task { await engine.fetch(request) } }

        engine.cancelAll(reason: "interrupted by SIGINT")
        var results: [TransferResult] = []
        for task in tasks { results.append(await task.value) }

        for result in results {
            #expect(result.failure?.kind == .network)
            #expect(result.failure?.message.hasSuffix("cancelled: interrupted by SIGINT") == true)
        }
        for (result, request) in zip(results[..<2], requests[..<2]) {
            #expect(result.attempts == 1)
            #expect(result.bytes > 0 && result.bytes < Int64(body.count))
            #expect(Self.fileSize(request.destination) == result.bytes)
            #expect(Self.fileBytes(request.destination).map { $0 == Array(body[..<Int(result.bytes)]) } == true)
            #expect(result.resumable?.offset == result.bytes)
            #expect(result.resumable?.validator == result.headers.etag)
        }
        for (result, request) in zip(results[2...], requests[2...]) {
            #expect(result.attempts == 0)
            #expect(result.bytes == 0)
            #expect(!FileManager.default.fileExists(atPath: request.destination))
        }
        // Only the two that were in flight reached the server; they are logged when their connections close.
        #expect(await fixture.server.waitForRequests(count: 2).count == 2)
        #expect(await fixture.server.waitForRequests(count: 3, timeout: .milliseconds(300)).count == 2)
        let later = await engine.fetch(TransferRequest(url: fixture.server.url("a.bin"), destination: fixture.destination()))
        #expect(later.failure?.message.hasSuffix("cancelled: interrupted by SIGINT") == true)
        #expect(later.attempts == 0)

        // What a cancelled transfer left is enough to finish it later.
        let another = try TransferEngine()
        defer { another.shutdown() }
        let resume = try #require(results[0].resumable)
        let finished = await another.fetch(TransferRequest(
            url: fixture.server.url("a.bin"), destination: requests[0].destination, resume: resume))
        #expect(finished.failure == nil)
        #expect(finished.status == 206)
        #expect(finished.resumedFrom == resume.offset)
        #expect(finished.sha256 == Self.hex(body))
        try await fixture.server.stop()
    }
}
