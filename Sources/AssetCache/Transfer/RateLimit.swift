import CCurl

#if canImport(Glibc)
import Glibc
#endif

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

extension Transfer {
    /// libcurl's options for a transfer under the engine's shared limit.
    ///
    /// The bytes the write callback sees are not all that cross the wire: a
    /// server fills a connection's socket receive buffer as fast as it can,
    /// however slowly that buffer is read (by default 128 KiB, and Linux grows
    /// it to megabytes). So each new connection gets a small buffer, and the
    /// budget is charged what the kernel may hold in it when it opens; small
    /// reads keep each overdraft small.
    func limitReceiving(_ easy: UnsafeMutableRawPointer, bytesPerSecond: Int64, concurrency: Int, context: UnsafeMutableRawPointer) -> CURLcode {
        receivePaused = false
        let read = RateLimit.readSize(bytesPerSecond: bytesPerSecond, concurrency: concurrency)
        var result = ccurl_easy_setopt_long(easy, CURLOPT_BUFFERSIZE, read)
        if result == CURLE_OK { result = ccurl_easy_setopt_pointer(easy, CURLOPT_SOCKOPTDATA, context) }
        if result == CURLE_OK {
            result = ccurl_easy_setopt_sockopt_callback(easy) { context, socket, purpose in
                guard purpose == CURLSOCKTYPE_IPCXN, let context else { return CURL_SOCKOPT_OK }
                let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
                guard let meter = transfer.meter else { return CURL_SOCKOPT_OK }
                var size = RateLimit.receiveBuffer(bytesPerSecond: meter.bytesPerSecond, concurrency: meter.concurrency)
                if setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) == 0 {
                    meter.spend(2 * Int(size))
                }
                return CURL_SOCKOPT_OK
            }
        }
        return result
    }

    /// Charges bytes that have arrived, and pauses this transfer at once when
    /// they overdraw the budget: libcurl 7.88 goes on reading a socket within
    /// one call for as long as it is readable (up to 100 reads), which a
    /// pause between calls would not stop.
    func charge(_ bytes: Int) {
        guard let meter else { return }
        meter.spend(bytes)
        if meter.isOverdrawn, !receivePaused {
            setReceivePaused(true)
        }
    }

    /// Pauses or resumes receiving; safe inside libcurl's callbacks.
    func setReceivePaused(_ paused: Bool) {
        guard let easy else { return }
        // Set first: resuming may hand over held data at once, whose charge
        // may pause the transfer again from inside this call.
        receivePaused = paused
        curl_easy_pause(easy, paused ? CURLPAUSE_RECV : CURLPAUSE_CONT)
    }
}
