#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import NIOHTTP1

/// One request, from its head until its response ends or its connection
/// closes; it is logged exactly once, and reported to the observer exactly once.
final class Exchange {
    let head: HTTPRequestHead
    private(set) var request: LoggedRequest
    private let seq: Int
    private let log: RequestLog
    private var logged = false
    private var ended = false

    init(head: HTTPRequestHead, log: RequestLog) {
        self.head = head
        self.log = log
        let target = head.uri
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var headers: [String: String] = [:]
        for (name, value) in head.headers {
            let key = name.lowercased()
            headers[key] = headers[key].map { "\($0), \(value)" } ?? value
        }
        let now = Self.now()
        request = LoggedRequest(
            method: head.method.rawValue,
            path: String(parts[0]).percentDecoded(),
            query: parts.count > 1 ? String(parts[1]) : nil,
            target: target,
            headers: headers,
            status: 0,
            bodyBytes: 0,
            startedAt: now,
            endedAt: now)
        seq = log.arrive()
    }

    var isLogged: Bool { logged }

    func respond(status: Int) {
        request.status = status
    }

    func didSend(_ bytes: Int) {
        request.bodyBytes += bytes
        if logged {
            log.amend(seq: seq, bodyBytes: request.bodyBytes)
        }
    }

    /// Logs the request as it stands. A response is logged just before its
    /// last bytes are written (`pendingBytes`), so that a client that has read
    /// the whole response always finds it in the log.
    func finish(pendingBytes: Int = 0) {
        guard !logged else { return }
        logged = true
        var entry = request
        entry.bodyBytes += pendingBytes
        entry.endedAt = Self.now()
        log.complete(seq: seq, entry)
    }

    /// The last write failed after the request was logged: record what was sent.
    func lastWriteFailed() {
        if logged {
            log.amend(seq: seq, bodyBytes: request.bodyBytes)
        }
    }

    /// The response's last write has completed, or the connection closed:
    /// its end time is known, and the observer (a log file) hears of it now,
    /// so that rates measured from its times follow the socket, not the queue.
    func end() {
        finish()
        guard !ended else { return }
        ended = true
        request.endedAt = Self.now()
        log.amend(seq: seq, bodyBytes: request.bodyBytes, endedAt: request.endedAt)
        log.report(request)
    }

    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
