import CCurl
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The link watch of the loop (docs/limits.md#when-the-link-is-down): probing,
/// parking transfers while the link is down, and the --link-wait bound.
extension TransferLoop {
    /// A failure the link watch keeps aside until it knows whether it was the
    /// link's (``LinkWatch/Verdict/hold``).
    struct HeldFailure {
        let transfer: Transfer
        let failure: AttemptFailure
        let retryAfter: String?
    }

    func startDueProbe() {
        guard probe == nil, link.isProbeDue(at: clock.now) else { return }
        startProbe()
    }

    func startProbe() {
        stopProbe()
        link.probeStarted()
        guard let target = link.probeTarget, let started = LinkProbe(target: target, limits: limits),
              ccurl_multi_add_handle(multi, started.easy) == CURLM_OK
        else {
            probeEnded(linkIsUp: false)
            return
        }
        probe = started
    }

    func stopProbe() {
        guard let probe else { return }
        ccurl_multi_remove_handle(multi, probe.easy)
        self.probe = nil
    }

    func probeEnded(linkIsUp: Bool) {
        let now = clock.now
        let host = probe?.target.hostKey ?? link.probeTarget?.hostKey ?? ""
        stopProbe()
        if linkIsUp {
            linkHeard(from: host, at: now)
        } else if link.probeFailed(at: now) {
            linkWentDown()
        }
    }

    /// Any byte of an answer from any host (or a probe's) says the link
    /// carries requests: an outage ends and every parked transfer goes back
    /// into the queue, to resume with Range; failures held for news count as
    /// their assets' own.
    /// Returns whether anything is waiting to start.
    func noteBytesHeard() -> Bool {
        var changed = false
        for transfer in active.values where transfer.heardBytes {
            transfer.heardBytes = false
            if !transfer.hasAnswered {
                transfer.hasAnswered = true
                link.answered(ProbeTarget(transfer))
            }
            changed = linkHeard(from: transfer.hostKey, at: clock.now) || changed
        }
        return changed
    }

    @discardableResult
    func linkHeard(from host: String, at now: ContinuousClock.Instant) -> Bool {
        let released = releaseHeld()
        guard let outage = link.heard(from: host, at: now) else { return released }
        let resumed = parked.removeAll()
        for transfer in resumed { pending.insert(transfer) }
        linkTally.record(link)
        suspicion?.observer?.linkBack(after: outage, resuming: resumed.count)
        return true
    }

    /// Parks `transfer` when the link is down, keeps it aside while the link
    /// watch waits to know (starting the probe when this failure makes the
    /// link suspect), or returns false to leave it to the ordinary per-asset
    /// retries.
    func holdOrPark(_ transfer: Transfer, failure: AttemptFailure, retryAfter: String?) -> Bool {
        guard !link.isDown else {
            park(transfer)
            return true
        }
        transfer.linkFailurePeriod = link.quietPeriod
        let weighed = LinkWatch.Failure(
            host: transfer.hostKey, request: ProbeTarget(transfer), isGateway: failure.isGatewayStatus, answeredBefore: transfer.hasAnswered)
        switch link.failed(weighed, hostsInFlight: Set(active.values.lazy.map(\.hostKey)), transfersInFlight: active.count, at: clock.now) {
        case .ordinary:
            releaseHeld()
            return false
        case .hold:
            held.append(HeldFailure(transfer: transfer, failure: failure, retryAfter: retryAfter))
            return true
        case .suspect:
            held.append(HeldFailure(transfer: transfer, failure: failure, retryAfter: retryAfter))
            suspicion = (failure.failure, transfer.request.observer)
            startProbe()
            return true
        }
    }

    private func park(_ transfer: Transfer) {
        transfer.forgiveAttempt()
        transfer.prepareRetry()
        parked.insert(transfer)
    }

    /// The failures held for news count as their assets' own, as any failure
    /// does. Also when nothing is left that could bring news: no transfer in
    /// flight, no probe out.
    /// Returns whether any was held.
    @discardableResult
    func releaseHeld() -> Bool {
        guard !held.isEmpty else { return false }
        let released = held
        held.removeAll()
        for entry in released {
            concludeAttempt(entry.transfer, failure: entry.failure, retryAfter: entry.retryAfter)
        }
        return true
    }

    /// Held failures that nothing can settle any more (the transfers they
    /// waited on were cancelled or given up) count as their own.
    func releaseStrandedHeld() -> Bool {
        guard !held.isEmpty, active.isEmpty, !link.isSuspect else { return false }
        return releaseHeld()
    }

    /// The probe confirmed it: the failures held for it, and retries
    /// scheduled since the last byte that failed in this same outage, get
    /// their attempt back and wait for the link too.
    func linkWentDown() {
        for entry in held { park(entry.transfer) }
        held.removeAll()
        let quietPeriod = link.quietPeriod
        waiting.removeAll { waiter in
            guard waiter.linkFailurePeriod == quietPeriod else { return false }
            waiter.forgiveAttempt()
            waiter.retryAt = nil
            parked.insert(waiter)
            return true
        }
        linkTally.record(link)
        if let suspicion {
            suspicion.observer?.linkDown(after: suspicion.failure, wait: Self.seconds(link.wait))
        }
    }

    /// The link stayed down for `--link-wait`: every transfer ends, its partial
    /// file kept for the next run, and later ones fail at once.
    func endLinkWaitIfOver() {
        guard let deadline = link.deadline, deadline <= clock.now else { return }
        link.stopWaiting(at: clock.now, givesUp: true)
        linkTally.record(link)
        let transfers = takeEveryTransfer().sorted(by: { $0.sequence < $1.sequence })
        suspicion?.observer?.linkGivenUp(wait: Self.seconds(link.wait), failing: transfers.count)
        for transfer in transfers {
            transfer.finish(failure: linkWaitFailure(transfer), keepsPartial: true)
        }
    }

    func linkWaitFailure(_ transfer: Transfer) -> AssetFailure {
        AssetFailure(.network, "could not fetch \(transfer.request.url): the link was down for \(Self.seconds(link.wait)) s (--link-wait)")
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int64(value)) : DecimalText.fixed(value, digits: 1)
    }
}
