import CCurl

#if canImport(Glibc)
import Glibc
#endif

extension Transfer {
    /// libcurl's options for a transfer under the engine's shared limit.
    ///
    /// The bytes the write callback sees are not all that cross the wire: a
    /// server fills a connection's socket receive buffer as fast as it can,
    /// however slowly that buffer is read (by default 128 KiB, and Linux grows
    /// it to megabytes). So each new connection gets a small buffer, and the
    /// budget is charged, when it opens, for what the kernel may hold in it
    /// at the start and at the end; small reads keep each overdraft small.
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
                    // Linux gives twice what is asked. Charged twice over: what
                    // the server may put in it before the first read, and what
                    // it holds when the server is done, read after the server's
                    // last byte left (with 8 connections charged once, the
                    // server saw 201.4 KiB/s under --limit-rate 200K; row H).
                    meter.spend(4 * Int(size))
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
        ccurl_easy_pause(easy, paused ? CURLPAUSE_RECV : CURLPAUSE_CONT)
    }
}
