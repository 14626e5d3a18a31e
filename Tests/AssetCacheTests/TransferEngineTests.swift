import Foundation
import Testing

@testable import AssetCache

#if canImport(Glibc)
import Glibc
#endif

/// Real libcurl transfers that need no HTTP server: refused connections, a
/// listener that never answers, schemes libcurl must refuse. The tests against
/// the fixture server are in TransferEngineFixtureTests.swift.
@Suite struct TransferEngineTests {
    @Test func fileURLIsRefusedAsUnsupportedScheme() async throws {
        let dir = try TemporaryDirectory()
        let secret = dir.path + "/secret.txt"
        try "not for you".write(toFile: secret, atomically: true, encoding: .utf8)
        let engine = try TransferEngine()
        defer { engine.shutdown() }

        let result = await engine.fetch(TransferRequest(url: "file://" + secret, destination: dir.path + "/out"))

        #expect(result.failure?.kind == .unsupportedScheme)
        #expect(result.attempts == 1)
        #expect(result.status == 0)
        #expect(result.bytes == 0)
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/out"))
    }

    @Test func refusedConnectionIsNetworkFailureAfterRetries() async throws {
        let dir = try TemporaryDirectory()
        let port = try ClosedPort().port
        var limits = TransferLimits()
        limits.retries = 1
        let engine = try TransferEngine(limits: limits)
        defer { engine.shutdown() }

        let result = await engine.fetch(TransferRequest(url: "http://127.0.0.1:\(port)/a.png", destination: dir.path + "/out"))

        #expect(result.failure?.kind == .network)
        #expect(result.failure?.message.contains("127.0.0.1") == true)
        #expect(result.attempts == 2)
        #expect(result.status == 0)
    }

    @Test func silentServerTimesOutOnStall() async throws {
        let dir = try TemporaryDirectory()
        let listener = try SilentListener()
        var limits = TransferLimits()
        limits.retries = 0
        limits.stallTimeout = 1
        let engine = try TransferEngine(limits: limits)
        defer { engine.shutdown() }

        let result = await engine.fetch(TransferRequest(url: "http://127.0.0.1:\(listener.port)/slow", destination: dir.path + "/out"))

        #expect(result.failure?.kind == .timeout)
        #expect(result.attempts == 1)
    }

    @Test func cancellingTheTaskCancelsTheTransfer() async throws {
        let dir = try TemporaryDirectory()
        let listener = try SilentListener()
        // No timeout may end the first request: on a loaded machine the test's own
        // task can resume after the stall timeout, and a timed-out request is retried.
        var limits = TransferLimits()
        limits.stallTimeout = 0
        limits.maxTime = 0
        let engine = try TransferEngine(limits: limits)
        defer { engine.shutdown() }

        let request = TransferRequest(url: "http://127.0.0.1:\(listener.port)/hang", destination: dir.path + "/out")
        let task = Task { await engine.fetch(request) }
        try await listener.waitForConnection()
        task.cancel()
        let result = await task.value

        #expect(result.failure?.kind == .network)
        #expect(result.failure?.message.contains("cancelled") == true)
        #expect(result.attempts == 1)
    }

    @Test func alreadyCancelledTaskMakesNoRequest() async throws {
        let dir = try TemporaryDirectory()
        let listener = try SilentListener()
        let engine = try TransferEngine()
        defer { engine.shutdown() }

        let request = TransferRequest(url: "http://127.0.0.1:\(listener.port)/x", destination: dir.path + "/out")
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await engine.fetch(request)
        }
        let result = await task.value

        #expect(result.failure?.kind == .network)
        #expect(result.attempts == 0)
    }

    @Test func shutdownEndsPendingTransfersAndRefusesNewOnes() async throws {
        let dir = try TemporaryDirectory()
        let listener = try SilentListener()
        var limits = TransferLimits()
        limits.concurrency = 1
        // As above: only the shutdown may end the first request, however late it comes.
        limits.stallTimeout = 0
        limits.maxTime = 0
        let engine = try TransferEngine(limits: limits)
        let base = "http://127.0.0.1:\(listener.port)"
        let path = dir.path

        async let first = engine.fetch(TransferRequest(url: base + "/1", destination: path + "/1"))
        async let second = engine.fetch(TransferRequest(url: base + "/2", destination: path + "/2"))
        try await listener.waitForConnection()
        engine.shutdown()
        engine.shutdown()
        let results = await [first, second]
        let late = await engine.fetch(TransferRequest(url: "http://127.0.0.1:\(listener.port)/3", destination: dir.path + "/3"))

        #expect(results.allSatisfy { $0.failure?.kind == .network })
        #expect(late.failure?.kind == .network)
        #expect(late.attempts == 0)
    }
}

/// The pure parts of the engine, without sockets.
@Suite struct TransferPartsTests {
    struct Item: TransferQueueItem, Equatable {
        var priority: Int
        var sequence: Int
    }

    @Test func queueOrdersByPriorityThenSubmission() {
        var queue = TransferQueue<Item>()
        for (sequence, priority) in [0, 5, 0, 5, 9, -1].enumerated() {
            queue.insert(Item(priority: priority, sequence: sequence))
        }
        var order: [Int] = []
        while let item = queue.popFirst(where: { _ in true }) { order.append(item.sequence) }
        #expect(order == [4, 1, 3, 0, 2, 5])
    }

    @Test func queueSkipsBlockedElementsWithoutReordering() {
        var queue = TransferQueue<Item>()
        for sequence in 0..<4 { queue.insert(Item(priority: 0, sequence: sequence)) }
        #expect(queue.popFirst(where: { $0.sequence % 2 == 1 })?.sequence == 1)
        #expect(queue.elements.map(\.sequence) == [0, 2, 3])
    }

    @Test func retryPolicyFollowsDesign() {
        let policy = TransferRetryPolicy(retries: 3)
        let unavailable = AttemptFailure.http(status: 503, from: "http://h/a")
        let notFound = AttemptFailure.http(status: 404, from: "http://h/a")
        let tooMany = AttemptFailure.http(status: 429, from: "http://h/a")

        #expect(notFound.isTransient == false)
        #expect(tooMany.isTransient && AttemptFailure.http(status: 408, from: "u").isTransient)
        #expect(policy.decide(failure: notFound.failure, transient: false, retryAfter: nil, attemptsMade: 1) == .giveUp(notFound.failure))
        #expect(policy.decide(failure: unavailable.failure, transient: true, retryAfter: nil, attemptsMade: 4) == .giveUp(unavailable.failure))
        for attempt in 1...3 {
            guard case .retry(let delay) = policy.decide(failure: unavailable.failure, transient: true, retryAfter: nil, attemptsMade: attempt) else {
                Issue.record("attempt \(attempt) should retry")
                continue
            }
            let nominal = 0.5 * pow(2, Double(attempt - 1))
            #expect(delay >= nominal * 0.75 && delay <= nominal * 1.25)
        }
        #expect(policy.decide(failure: tooMany.failure, transient: true, retryAfter: "2", attemptsMade: 1) == .retry(afterSeconds: 2))
        guard case .giveUp(let late) = policy.decide(failure: tooMany.failure, transient: true, retryAfter: "61", attemptsMade: 1) else {
            Issue.record("a Retry-After over 60 s should fail now")
            return
        }
        #expect(late.kind == .httpStatus && late.message.contains("Retry-After"))
    }

    @Test func retryAfterAcceptsSecondsAndHTTPDates() {
        let now: time_t = 784_111_777  // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(TransferRetryPolicy.seconds(fromRetryAfter: " 120 ", now: now) == 120)
        #expect(TransferRetryPolicy.seconds(fromRetryAfter: "Sun, 06 Nov 1994 08:49:47 GMT", now: now) == 10)
        #expect(TransferRetryPolicy.seconds(fromRetryAfter: "Sunday, 06-Nov-94 08:49:40 GMT", now: now) == 3)
        #expect(TransferRetryPolicy.seconds(fromRetryAfter: "Sun, 06 Nov 1994 08:00:00 GMT", now: now) == 0)
        #expect(TransferRetryPolicy.seconds(fromRetryAfter: "soon", now: now) == nil)
    }

    @Test func responseHeadKeepsOnlyTheLastResponse() {
        var head = ResponseHead()
        let lines = [
            "HTTP/1.1 301 Moved\r\n", "Location: /b\r\n", "ETag: \"old\"\r\n", "\r\n",
            "HTTP/2 200 \r\n", "ETag: \"new\"\r\n", "cache-control: max-age=60\r\n",
            "Cache-Control: public\r\n", "\r\n", "X-Trailer: ignored\r\n",
        ]
        for line in lines {
            Array(line.utf8).withUnsafeBytes { head.consume(line: $0) }
        }
        #expect(head.status == 200)
        #expect(head.headers.etag == "\"new\"")
        #expect(head.headers["CACHE-CONTROL"] == "max-age=60, public")
        #expect(head.headers["location"] == nil)
        #expect(head.headers["x-trailer"] == nil)
    }

    @Test func hostKeyIgnoresUserInfoPathAndCase() {
        #expect(Transfer.hostKey(of: "HTTPS://user:pw@CDN.example.com:8443/a?b#c") == "https://cdn.example.com:8443")
        #expect(Transfer.hostKey(of: "http://h?x=1") == "http://h")
    }

    @Test func sizesAreDescribedInBinaryUnits() {
        #expect(AttemptFailure.describe(bytes: 50 * 1024 * 1024) == "50 MiB")
        #expect(AttemptFailure.describe(bytes: 1536) == "1536 bytes")
        #expect(AttemptFailure.describe(bytes: 2048) == "2 KiB")
    }
}

// MARK: - helpers

/// A directory removed when the test ends.
final class TemporaryDirectory {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("transfer-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// A loopback TCP listener that accepts connections (the kernel completes the
/// handshake) but never reads or answers: a server that hangs.
final class SilentListener {
    let port: Int
    private let descriptor: Int32

    init() throws {
        (descriptor, port) = try boundLoopbackSocket()
        guard listen(descriptor, 64) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
    }

    deinit {
        close(descriptor)
    }

    /// Returns once a client has connected (the listening socket turns readable).
    /// The bound is generous: on a loaded CI machine the engine's thread may be slow to run.
    func waitForConnection(timeoutMs: Int32 = 120_000) async throws {
        let descriptor = descriptor
        // poll(2) blocks on a dispatch thread, not the cooperative pool.
        let ready = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                continuation.resume(returning: poll(&entry, 1, timeoutMs) == 1)
            }
        }
        if !ready { Issue.record("no client connected within \(timeoutMs) ms") }
    }
}

/// A loopback port that was just free and has nothing listening on it.
struct ClosedPort {
    let port: Int

    init() throws {
        let (descriptor, port) = try boundLoopbackSocket()
        close(descriptor)
        self.port = port
    }
}

private func boundLoopbackSocket() throws -> (Int32, Int) {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
            bind(descriptor, address, length) == 0 && getsockname(descriptor, address, &length) == 0
        }
    }
    guard bound else {
        close(descriptor)
        throw POSIXError(.init(rawValue: errno) ?? .EIO)
    }
    return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
}
