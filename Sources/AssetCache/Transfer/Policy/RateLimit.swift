/// `--limit-rate`: one budget of bytes per second for every transfer of an
/// engine together. libcurl's CURLOPT_MAX_RECV_SPEED_LARGE limits each
/// transfer on its own, so eight at once would take eight times the limit.
///
/// A token bucket that may go into debt: the write callback charges every
/// body byte as it arrives (bytes already read cannot be refused), and while
/// the balance is negative the loop pauses all receiving and sleeps until the
/// debt is paid. So the bytes read by any moment stay within `capacity` plus
/// the rate times the time elapsed, plus the one read that overdraws it.
/// Lives on the engine's thread only.
final class RateLimit {
    let bytesPerSecond: Int64
    /// Transfers at once, among which the rate is shared.
    let concurrency: Int
    /// Unused budget kept for later: a sixteenth of a second's worth, so that
    /// an idle moment (a handshake, a retry's wait) is not made up by a burst.
    private let capacity: Double
    /// Bytes that may still be read now; negative while in debt. It starts
    /// at zero: no burst at the start either.
    private var balance: Double = 0
    private var updatedAt: ContinuousClock.Instant

    init(bytesPerSecond: Int64, concurrency: Int, now: ContinuousClock.Instant) {
        self.bytesPerSecond = max(1, bytesPerSecond)
        self.concurrency = max(1, concurrency)
        capacity = Double(self.bytesPerSecond) / 16
        updatedAt = now
    }

    /// Body bytes that have just arrived.
    func spend(_ bytes: Int) {
        balance -= Double(bytes)
    }

    /// Adds the budget earned since the last refill.
    func refill(at now: ContinuousClock.Instant) {
        guard now > updatedAt else { return }
        let elapsed = updatedAt.duration(to: now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        balance = min(capacity, balance + seconds * Double(bytesPerSecond))
        updatedAt = now
    }

    var isOverdrawn: Bool { balance < 0 }

    /// Milliseconds until the debt is paid, rounded up; 0 when there is none.
    var millisecondsUntilSolvent: Int {
        guard balance < 0 else { return 0 }
        return Int((-balance * 1000 / Double(bytesPerSecond)).rounded(.up))
    }

    /// A receive buffer for each transfer's reads: with at most this many
    /// bytes per read and `concurrency` transfers, one round of reads
    /// overdraws the budget by a sixteenth of a second at most (libcurl's
    /// floor is 1 KiB; its default of 16 KiB above a fast limit).
    static func readSize(bytesPerSecond: Int64, concurrency: Int) -> Int {
        let share = bytesPerSecond / Int64(16 * max(1, concurrency))
        return Int(min(16 * 1024, max(1024, share)))
    }
}

extension RateLimit {
    /// Each new connection's receive buffer under a limit: a quarter of a
    /// second of a transfer's fair share (enough for a 250 ms round trip),
    /// at least 4 KiB. Linux doubles what is asked, for its bookkeeping.
    static func receiveBuffer(bytesPerSecond: Int64, concurrency: Int) -> Int32 {
        let share = bytesPerSecond / Int64(4 * max(1, concurrency))
        return Int32(min(256 * 1024, max(4096, share)))
    }
}
