import CCurl
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The link watch of the loop (docs/limits.md#when-the-link-is-down): probing,
/// parking transfers while the link is down, and the --link-wait bound.
extension TransferLoop {
    func startDueProbe() {
        guard probe == nil, link.isProbeDue(at: clock.now) else { return }
        startProbe()
    }

    func startProbe() {
        link.probeStarted()
        guard let started = LinkProbe(host: link.probeHost, limits: limits), ccurl_multi_add_handle(multi, started.easy) == CURLM_OK else {
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
        let host = probe?.host ?? link.probeHost
        stopProbe()
        if linkIsUp {
            linkHeard(from: host, at: now)
        } else if link.probeFailed(at: now) {
            linkWentDown()
        }
    }

    /// Any byte from any host (or a probe's connect) says the link carries
    /// bytes: an outage ends and every parked transfer goes back into the
    /// queue, to resume with Range.
    /// Returns whether an outage ended (parked transfers are waiting to start).
    func noteBytesHeard() -> Bool {
        var resumed = false
        for transfer in active.values where transfer.heardBytes {
            transfer.heardBytes = false
            resumed = linkHeard(from: transfer.hostKey, at: clock.now) || resumed
        }
        return resumed
    }

    @discardableResult
    func linkHeard(from host: String, at now: ContinuousClock.Instant) -> Bool {
        guard let outage = link.heard(from: host, at: now) else { return false }
        let resumed = parked.removeAll()
        for transfer in resumed { pending.insert(transfer) }
        linkTally.record(link)
        suspicion?.observer?.linkBack(after: outage, resuming: resumed.count)
        return true
    }

    /// Parks `transfer` when the link is down; false leaves it to the
    /// ordinary per-asset retries, after making the link suspect if this
    /// failure completes the picture of every host failing.
    func parkIfLinkDown(_ transfer: Transfer, failure: AttemptFailure) -> Bool {
        guard link.isDown else {
            transfer.linkFailurePeriod = link.quietPeriod
            if link.failed(host: transfer.hostKey, hostsInFlight: Set(active.values.lazy.map(\.hostKey)), at: clock.now) {
                suspicion = (failure.failure, transfer.request.observer)
                startProbe()
            }
            return false
        }
        transfer.forgiveAttempt()
        transfer.prepareRetry()
        parked.insert(transfer)
        return true
    }

    /// The probe confirmed it: retries scheduled since the last byte failed in
    /// this same outage get their attempt back and wait for the link too.
    func linkWentDown() {
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

    /// Returns whether any transfer finished.
}
