import CCurl

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Everything the multi thread owns: the multi handle, the priority queue, the
/// transfers in flight and those waiting to retry. Only that thread touches it,
/// so none of it needs a lock; other threads reach it through the inbox.
final class TransferLoop {
    let multi: UnsafeMutableRawPointer
    let inbox: TransferInbox
    let limits: TransferLimits
    let connections: ConnectionTally
    let linkTally: LinkTally
    let retryPolicy: TransferRetryPolicy
    let clock = ContinuousClock()

    var pending = TransferQueue<Transfer>()
    /// Backing off between attempts. Their deadlines bound the poll timeout, so
    /// no thread sleeps for a retry.
    var waiting: [Transfer] = []
    var active: [UInt64: Transfer] = [:]
    var activePerHost: [String: Int] = [:]
    var nextSequence = 0
    /// Set by `cancelAll`: from then on nothing starts.
    var cancelReason: String?
    var hostTimeouts: HostTimeouts
    /// `limitRate`, shared by every transfer; while it is overdrawn, every
    /// transfer's receiving is paused and nothing new starts.
    let rateLimit: RateLimit?
    var receivingPaused = false
    /// Whether the link is down; while it is, failed transfers are parked
    /// here (without using up an attempt) and nothing starts but one probe.
    var link: LinkWatch
    var parked = TransferQueue<Transfer>()
    /// Failures kept aside, uncounted, until the link watch knows whether
    /// they were the link's; while any is, nothing new starts.
    var held: [HeldFailure] = []
    /// The request that tells whether the link is down, or back.
    var probe: LinkProbe?
    /// The failure that made the link suspect, and whom to tell of outages:
    /// the run's observer, from the transfer that saw it.
    var suspicion: (failure: AssetFailure, observer: TransferObserver?)?
    /// Hosts that answered 429 or 503, held for every transfer to them.
    var pacing = HostPacing()

    /// The longest the thread blocks in curl_multi_poll with nothing to wake it;
    /// libcurl shortens it to its own timers, the inbox wakes it early.
    private static let idlePollMilliseconds = 1000

    init(multi: MultiHandle, inbox: TransferInbox, limits: TransferLimits, connections: ConnectionTally, linkTally: LinkTally) {
        self.multi = multi.raw
        self.inbox = inbox
        self.connections = connections
        self.linkTally = linkTally
        link = LinkWatch(wait: limits.linkWait)
        var limits = limits
        limits.concurrency = max(1, limits.concurrency)
        limits.perHost = max(1, limits.perHost)
        if let rate = limits.limitRate {
            // A transfer's share of a low limit, paused half the time, must not
            // read as a stall.
            limits.stallBytesPerSecond = min(limits.stallBytesPerSecond, max(1, Int(rate) / (4 * limits.concurrency)))
        }
        self.limits = limits
        retryPolicy = TransferRetryPolicy(retries: max(0, limits.retries))
        hostTimeouts = HostTimeouts(limit: limits.hostTimeoutLimit)
        rateLimit = limits.limitRate.map { RateLimit(bytesPerSecond: $0, concurrency: limits.concurrency, now: ContinuousClock.now) }
    }

    func run() {
        while true {
            let (commands, isClosed) = inbox.take()
            if isClosed {
                shutDown(unstarted: commands)
                return
            }
            for command in commands { handle(command) }
            endLinkWaitIfOver()
            requeueDueRetries()
            throttle()
            startDueProbe()
            startTransfers()

            var running: Int32 = 0
            ccurl_multi_perform(multi, &running)
            let resumed = noteBytesHeard()
            if collectFinished() || resumed || releaseStrandedHeld() {
                // Freed slots: fill them before sleeping.
                continue
            }
            throttle()
            ccurl_multi_poll(multi, Int32(pollTimeout()))
        }
    }

    // MARK: inbox

    private func handle(_ command: TransferCommand) {
        switch command {
        case .start(let submission):
            let transfer = Transfer(submission: submission, sequence: nextSequence, maxAssetSize: submission.request.maxSize ?? limits.maxAssetSize)
            transfer.meter = rateLimit
            nextSequence += 1
            if let failure = cancellation(of: transfer) {
                transfer.finish(failure: failure, keepsPartial: true)
            } else {
                pending.insert(transfer)
            }
        case .cancel(let id):
            cancel(id: id)
        case .cancelAll(let reason):
            cancelAll(reason: reason)
        }
    }

    /// Why `transfer` must not go on, if it must not.
    private func cancellation(of transfer: Transfer) -> AssetFailure? {
        if let cancelReason {
            return AssetFailure(.network, "transfer of \(transfer.request.url) cancelled: \(cancelReason)")
        }
        if transfer.ticket.isCancelled {
            return Self.cancelled(transfer)
        }
        if hostTimeouts.isGivenUp(transfer.hostKey) {
            return hostTimeouts.failure(host: transfer.hostKey, started: transfer.attempts > 0)
        }
        if link.givenUp {
            return linkWaitFailure(transfer)
        }
        return nil
    }

    /// Active (detached, attempt abandoned), queued and waiting-to-retry transfers.
    func takeEveryTransfer() -> [Transfer] {
        var transfers: [Transfer] = []
        for transfer in Array(active.values) {
            detach(transfer)
            transfer.abandonAttempt()
            transfers.append(transfer)
        }
        transfers += pending.removeAll()
        transfers += parked.removeAll()
        transfers += held.map(\.transfer)
        held.removeAll()
        transfers += waiting
        waiting.removeAll()
        stopProbe()
        return transfers
    }

    /// Every transfer ends now, partial files closed and left in place.
    private func cancelAll(reason: String) {
        if cancelReason == nil {
            cancelReason = reason
        }
        link.stopWaiting(at: clock.now, givesUp: false)
        linkTally.record(link)
        for transfer in takeEveryTransfer().sorted(by: { $0.sequence < $1.sequence }) {
            transfer.finish(failure: cancellation(of: transfer), keepsPartial: true)
        }
    }

    private func cancel(id: UInt64) {
        let transfer: Transfer
        if let found = active[id] {
            detach(found)
            found.abandonAttempt()
            transfer = found
        } else if let found = pending.remove(where: { $0.ticket.id == id }) ?? parked.remove(where: { $0.ticket.id == id }) {
            transfer = found
        } else if let index = waiting.firstIndex(where: { $0.ticket.id == id }) {
            transfer = waiting.remove(at: index)
        } else if let index = held.firstIndex(where: { $0.transfer.ticket.id == id }) {
            transfer = held.remove(at: index).transfer
        } else {
            // Already finished, or not here yet: its start will see the ticket's flag.
            return
        }
        transfer.finish(failure: Self.cancelled(transfer))
    }

    // MARK: scheduling

    private func requeueDueRetries() {
        guard !waiting.isEmpty else { return }
        let now = clock.now
        waiting.removeAll { transfer in
            guard let retryAt = transfer.retryAt, retryAt <= now else { return false }
            transfer.retryAt = nil
            pending.insert(transfer)
            return true
        }
    }

    /// libcurl gets at most `concurrency` transfers, and at most `perHost` for one
    /// host, so the order they start in is the queue's, not libcurl's. Nothing
    /// starts while the link is down or a failure waits to know whether it
    /// was the link's, nor to a host that asked for a pause.
    private func startTransfers() {
        let now = clock.now
        while active.count < limits.concurrency, !receivingPaused, !link.isDown, held.isEmpty {
            guard let transfer = pending.popFirst(where: {
                (activePerHost[$0.hostKey] ?? 0) < limits.perHost && !pacing.isHeld($0.hostKey, at: now)
            }) else {
                return
            }
            if let failure = cancellation(of: transfer) {
                transfer.finish(failure: failure, keepsPartial: true)
                continue
            }
            if let failure = transfer.beginAttempt(limits: limits) {
                transfer.abandonAttempt()
                conclude(transfer, failure: failure, retryAfter: nil)
                continue
            }
            guard ccurl_multi_add_handle(multi, transfer.easy) == CURLM_OK else {
                transfer.abandonAttempt()
                transfer.finish(failure: AssetFailure(.network, "libcurl could not start \(transfer.request.url)"))
                continue
            }
            active[transfer.ticket.id] = transfer
            activePerHost[transfer.hostKey, default: 0] += 1
        }
    }

    private func collectFinished() -> Bool {
        var finishedAny = false
        var remaining: Int32 = 0
        while let message = ccurl_multi_info_read(multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            // The message dies with the handle's removal: copy what is needed first.
            let code = message.pointee.data.result
            if let probe, probe.easy == easy {
                probeEnded(linkIsUp: probe.linkIsUp(after: code))
                finishedAny = true
                continue
            }
            var context: UnsafeMutableRawPointer?
            _ = ccurl_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &context)
            guard let context else { continue }
            let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
            detach(transfer)
            switch transfer.endAttempt(code, limits: limits) {
            case .succeeded:
                transfer.finish(failure: nil)
            case .failed(let failure, let retryAfter):
                conclude(transfer, failure: failure, retryAfter: retryAfter)
            case .restart:
                if let cancelled = cancellation(of: transfer) {
                    transfer.finish(failure: cancelled, keepsPartial: true)
                } else {
                    transfer.prepareRestart()
                    pending.insert(transfer)
                }
            }
            finishedAny = true
        }
        return finishedAny
    }

    private func conclude(_ transfer: Transfer, failure: AttemptFailure, retryAfter: String?) {
        if failure.isLinkLevel || failure.isGatewayStatus, cancelReason == nil, !link.givenUp,
           holdOrPark(transfer, failure: failure, retryAfter: retryAfter) {
            return
        }
        concludeAttempt(transfer, failure: failure, retryAfter: retryAfter)
    }

    /// A failed request counted against its transfer: a retry, or the end.
    func concludeAttempt(_ transfer: Transfer, failure: AttemptFailure, retryAfter: String?) {
        if failure.failure.kind == .timeout, hostTimeouts.countTimeout(of: transfer.hostKey) {
            giveUp(host: transfer.hostKey)
        }
        if cancelReason == nil, hostTimeouts.isGivenUp(transfer.hostKey) {
            // Its own timeout says more than "not tried"; no retry.
            transfer.finish(failure: failure.failure, keepsPartial: true)
            return
        }
        if let cancelled = cancellation(of: transfer) {
            transfer.finish(failure: cancelled, keepsPartial: true)
            return
        }
        // A restart after a refused Range is an extra request, not a retry;
        // neither is a request that failed while the link was down.
        let decision = retryPolicy.decide(
            failure: failure.failure, transient: failure.isTransient, retryAfter: retryAfter,
            attemptsMade: transfer.countedAttempts)
        if failure.isHostBusy {
            holdHost(of: transfer, retryAfter: retryAfter, decision: decision)
        }
        switch decision {
        case .giveUp(let final):
            // A deferred asset is fetched by a later run: from where it stopped.
            transfer.finish(failure: final, keepsPartial: failure.isTransient || transfer.deferral != nil)
        case .retry(let seconds):
            transfer.request.observer?.willRetry(transfer.request.url, after: failure.failure, attempt: transfer.attempts, in: seconds)
            transfer.prepareRetry()
            transfer.retryAt = clock.now.advanced(by: CheckedNumber.duration(seconds: seconds))
            waiting.append(transfer)
        }
    }

    /// A 429 or 503 holds every request to its host for the Retry-After it
    /// gave (when within `maxRetryAfter`), else for this transfer's backoff.
    private func holdHost(of transfer: Transfer, retryAfter: String?, decision: TransferRetryPolicy.Decision) {
        var seconds = retryAfter.flatMap { TransferRetryPolicy.seconds(fromRetryAfter: $0, now: time(nil)) }
        if let given = seconds, given > retryPolicy.maxRetryAfter { seconds = nil }
        if seconds == nil, case .retry(let backoff) = decision { seconds = backoff }
        guard let seconds else { return }
        pacing.hold(transfer.hostKey, until: clock.now.advanced(by: CheckedNumber.duration(seconds: seconds)))
    }

    /// Ends every other transfer to `host` now: those in flight are abandoned
    /// (their partial files kept for the next run), queued and waiting ones
    /// are not tried.
    private func giveUp(host: String) {
        for transfer in Array(active.values) where transfer.hostKey == host {
            detach(transfer)
            transfer.abandonAttempt()
            transfer.finish(failure: hostTimeouts.failure(host: host, started: true), keepsPartial: true)
        }
        var ended: [Transfer] = []
        while let transfer = pending.remove(where: { $0.hostKey == host }) { ended.append(transfer) }
        waiting.removeAll { transfer in
            guard transfer.hostKey == host else { return false }
            ended.append(transfer)
            return true
        }
        for transfer in ended.sorted(by: { $0.sequence < $1.sequence }) {
            transfer.finish(failure: hostTimeouts.failure(host: host, started: transfer.attempts > 0), keepsPartial: true)
        }
    }

    /// Takes the transfer's handle out of the multi handle and frees its slot.
    private func detach(_ transfer: Transfer) {
        if let easy = transfer.easy {
            // Every request that reached libcurl passes here, finished or cancelled.
            var opened = 0
            if ccurl_easy_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &opened) == CURLE_OK { connections.add(opened) }
            ccurl_multi_remove_handle(multi, easy)
        }
        active[transfer.ticket.id] = nil
        if let count = activePerHost[transfer.hostKey] {
            activePerHost[transfer.hostKey] = count > 1 ? count - 1 : nil
        }
    }

    /// Pauses every transfer's receiving while the rate limit is overdrawn
    /// (a transfer whose bytes overdraw it has already paused itself), and
    /// lets them all go on once it is paid.
    private func throttle() {
        guard let rateLimit else { return }
        rateLimit.refill(at: clock.now)
        receivingPaused = rateLimit.isOverdrawn
        for transfer in active.values where transfer.receivePaused != receivingPaused {
            transfer.setReceivePaused(receivingPaused)
        }
    }

    private func pollTimeout() -> Int {
        let now = clock.now
        var timeout = Self.idlePollMilliseconds
        if receivingPaused, let rateLimit {
            timeout = min(timeout, max(1, rateLimit.millisecondsUntilSolvent))
        }
        var wakeUps = waiting.compactMap(\.retryAt)
        wakeUps += [link.nextProbeAt, link.deadline].compactMap { $0 }
        if !pending.isEmpty, let release = pacing.nextRelease(after: now) { wakeUps.append(release) }
        for instant in wakeUps {
            let remaining = now.duration(to: instant)
            let milliseconds = remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000
            // Rounded up, so the loop does not wake a hair early and spin.
            timeout = min(timeout, max(0, Int(milliseconds) + 1))
        }
        return timeout
    }

    // MARK: shutdown

    private func shutDown(unstarted commands: [TransferCommand]) {
        var transfers: [Transfer] = []
        for command in commands {
            if case .start(let submission) = command {
                transfers.append(Transfer(submission: submission, sequence: nextSequence, maxAssetSize: submission.request.maxSize ?? limits.maxAssetSize))
                nextSequence += 1
            }
        }
        transfers += takeEveryTransfer()
        link.stopWaiting(at: clock.now, givesUp: false)
        linkTally.record(link)
        for transfer in transfers {
            transfer.finish(
                failure: AssetFailure(.network, "transfer engine shut down before \(transfer.request.url) finished"),
                keepsPartial: true)
        }
        ccurl_multi_cleanup(multi)
    }

    private static func cancelled(_ transfer: Transfer) -> AssetFailure {
        AssetFailure(.network, "transfer of \(transfer.request.url) cancelled")
    }
}
