import NIOCore

/// What every connection of one server shares: the request log, the
/// `fail_first` counters and the in-flight gauge.
final class RequestLog: Sendable {
    private struct Waiter {
        var id: Int
        var count: Int
        var continuation: CheckedContinuation<[LoggedRequest], Never>
    }

    private struct State {
        // Kept sorted by arrival, although requests complete in any order.
        var entries: [(seq: Int, request: LoggedRequest)] = []
        var nextSeq = 0
        // Requests that arrived before the last reset are not logged after it,
        // so a straggler from an earlier test cannot leak into the next one.
        var firstLoggedSeq = 0
        var inFlight = 0
        var peakInFlight = 0
        var attempts: [String: Int] = [:]
        var waiters: [Waiter] = []
        var nextWaiterID = 0

        var requests: [LoggedRequest] { entries.map(\.request) }
    }

    private let state = Locked(State())
    private let observer: (@Sendable (LoggedRequest) -> Void)?

    init(observer: (@Sendable (LoggedRequest) -> Void)?) {
        self.observer = observer
    }

    /// A request head arrived; returns its arrival number.
    func arrive() -> Int {
        state.withLock { s in
            let seq = s.nextSeq
            s.nextSeq += 1
            s.inFlight += 1
            s.peakInFlight = max(s.peakInFlight, s.inFlight)
            return seq
        }
    }

    func complete(seq: Int, _ request: LoggedRequest) {
        let ready: [(CheckedContinuation<[LoggedRequest], Never>, [LoggedRequest])] = state.withLock { s in
            s.inFlight -= 1
            guard seq >= s.firstLoggedSeq else { return [] }
            let index = s.entries.lastIndex(where: { $0.seq < seq }).map { $0 + 1 } ?? 0
            s.entries.insert((seq, request), at: index)
            let requests = s.requests
            let (done, waiting) = s.waiters.partitioned { $0.count <= requests.count }
            s.waiters = waiting
            return done.map { ($0.continuation, requests) }
        }
        for (continuation, requests) in ready {
            continuation.resume(returning: requests)
        }
    }

    /// Corrects the byte count (and end time) of a request logged before its
    /// last write finished.
    func amend(seq: Int, bodyBytes: Int, endedAt: Double? = nil) {
        state.withLock { s in
            if let index = s.entries.lastIndex(where: { $0.seq == seq }) {
                s.entries[index].request.bodyBytes = bodyBytes
                if let endedAt { s.entries[index].request.endedAt = endedAt }
            }
        }
    }

    /// A response has ended for good: tells the observer.
    func report(_ request: LoggedRequest) {
        observer?(request)
    }

    /// Counts one more request to `target`; returns how many there have been.
    func attempt(target: String) -> Int {
        state.withLock { s in
            s.attempts[target, default: 0] += 1
            return s.attempts[target]!
        }
    }

    var requests: [LoggedRequest] { state.withLock { $0.requests } }
    var peakInFlight: Int { state.withLock { $0.peakInFlight } }

    func reset() {
        state.withLock { s in
            s.entries = []
            s.attempts = [:]
            s.peakInFlight = 0
            s.firstLoggedSeq = s.nextSeq
        }
    }

    /// Resumes once `count` requests are logged, or after `timeout` with what there is.
    func wait(count: Int, timeout: TimeAmount, on loop: any EventLoop) async -> [LoggedRequest] {
        await withCheckedContinuation { continuation in
            let waiterID: Int? = state.withLock { s in
                guard s.entries.count < count else {
                    continuation.resume(returning: s.requests)
                    return nil
                }
                let id = s.nextWaiterID
                s.nextWaiterID += 1
                s.waiters.append(Waiter(id: id, count: count, continuation: continuation))
                return id
            }
            guard let waiterID else { return }
            loop.scheduleTask(in: timeout) { self.expire(waiterID: waiterID) }
        }
    }

    private func expire(waiterID: Int) {
        let expired: (CheckedContinuation<[LoggedRequest], Never>, [LoggedRequest])? = state.withLock { s in
            guard let index = s.waiters.firstIndex(where: { $0.id == waiterID }) else { return nil }
            return (s.waiters.remove(at: index).continuation, s.requests)
        }
        if let (continuation, requests) = expired {
            continuation.resume(returning: requests)
        }
    }
}

extension Array {
    fileprivate func partitioned(by isFirst: (Element) -> Bool) -> ([Element], [Element]) {
        var first: [Element] = []
        var rest: [Element] = []
        for element in self {
            if isFirst(element) { first.append(element) } else { rest.append(element) }
        }
        return (first, rest)
    }
}
