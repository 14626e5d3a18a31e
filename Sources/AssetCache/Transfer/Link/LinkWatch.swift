/// Whether the device's link is down, judged from every transfer at once
/// (docs/limits.md, "When the link is down"). A dropped link resets or
/// refuses every connection to every host at the same moment; a host that is
/// down fails only its own. So the link is down when link-level failures
/// (``AttemptFailure/isLinkLevel``) have hit every host with transfers in
/// flight, no byte has come from any host since, and one of those hosts did
/// answer earlier in the run: a host never reached at all may simply be down,
/// and its assets keep their per-asset attempts. That makes the link
/// suspect; a probe (``LinkProbe``, a bare connect to the host) decides: it
/// connects, and the failures were the host's or the URL's own, counted as
/// attempts; it fails, and the link is down.
///
/// Lives on the multi thread, inside the loop.
struct LinkWatch {
    enum State: Equatable {
        case up
        /// A probe is out to tell whether the link is down.
        case suspect(since: ContinuousClock.Instant)
        case down(since: ContinuousClock.Instant)
    }

    /// Seconds the run waits for the link to come back (`--link-wait`); 0
    /// never treats the link as down.
    let wait: Double
    /// Probes of a link that is down wait this long, doubling up to
    /// `maxProbeDelay`, each ±`jitter`. A probe is one handshake, so the cap
    /// is low: the link is found back at most ~1.25 s after it returned (with
    /// a 4 s cap a 5 s outage on a 3G link cost 4 s more than curl did).
    static let firstProbeDelay = 0.25
    static let maxProbeDelay = 1.0
    static let jitter = 0.25

    private(set) var state = State.up
    /// The host probes connect to: one that answered earlier in the run.
    private(set) var probeHost = ""
    private(set) var nextProbeAt: ContinuousClock.Instant?
    /// Set once `wait` ran out: the link is not waited for again in this run.
    private(set) var givenUp = false
    /// Hosts with a link-level failure since the last byte from any host.
    private var failedHosts: Set<String> = []
    /// Hosts that sent at least one byte in this run.
    private var answeredHosts: Set<String> = []
    private var probeDelay = firstProbeDelay
    /// Changes whenever a byte ends a run of failures: a failure recorded under
    /// the current quiet period is one the outage may have caused.
    private(set) var quietPeriod = 0
    private(set) var outages = 0
    private(set) var downTime: Duration = .zero

    init(wait: Double) {
        self.wait = max(0, wait)
    }

    var isDown: Bool {
        if case .down = state { return true }
        return false
    }

    /// A byte arrived from `host`, or a probe connected to it. Returns how long
    /// the link was down when this ends an outage.
    mutating func heard(from host: String, at now: ContinuousClock.Instant) -> Duration? {
        answeredHosts.insert(host)
        if !failedHosts.isEmpty {
            failedHosts.removeAll()
            quietPeriod += 1
        }
        let wasDown = state
        state = .up
        nextProbeAt = nil
        guard case .down(let since) = wasDown else { return nil }
        let outage = since.duration(to: now)
        downTime += outage
        return outage
    }

    /// A link-level failure of a request to `host`, while `hostsInFlight` (the
    /// hosts of the other requests still in flight) have transfers going.
    /// Returns true when it makes the link suspect: probe `probeHost` now.
    mutating func failed(host: String, hostsInFlight: Set<String>, at now: ContinuousClock.Instant) -> Bool {
        guard wait > 0, !givenUp, state == .up else { return false }
        failedHosts.insert(host)
        guard hostsInFlight.isSubset(of: failedHosts) else { return false }
        guard let answered = answeredHosts.contains(host) ? host : failedHosts.first(where: answeredHosts.contains) else { return false }
        probeHost = answered
        state = .suspect(since: now)
        return true
    }

    /// A probe could not connect. Returns true when this takes the link down
    /// (it was suspect); either way the next probe is scheduled.
    mutating func probeFailed(at now: ContinuousClock.Instant) -> Bool {
        switch state {
        case .up:
            return false
        case .suspect(let since):
            state = .down(since: since)
            outages += 1
            probeDelay = Self.firstProbeDelay
            scheduleProbe(at: now)
            return true
        case .down:
            probeDelay = min(Self.maxProbeDelay, probeDelay * 2)
            scheduleProbe(at: now)
            return false
        }
    }

    /// A probe is under way: none other until it ends.
    mutating func probeStarted() {
        nextProbeAt = nil
    }

    func isProbeDue(at now: ContinuousClock.Instant) -> Bool {
        nextProbeAt.map { $0 <= now } ?? false
    }

    /// When `wait` runs out for the current outage, counted from the failure
    /// that made the link suspect.
    var deadline: ContinuousClock.Instant? {
        guard case .down(let since) = state else { return nil }
        return since.advanced(by: CheckedNumber.duration(seconds: wait))
    }

    /// The wait ran out (or the run ends): the outage ends here, unresolved.
    /// `givesUp`: no later failure takes the link down again in this run.
    mutating func stopWaiting(at now: ContinuousClock.Instant, givesUp: Bool) {
        if case .down(let since) = state {
            downTime += since.duration(to: now)
        }
        state = .up
        nextProbeAt = nil
        if givesUp { givenUp = true }
    }

    private mutating func scheduleProbe(at now: ContinuousClock.Instant) {
        let seconds = probeDelay * Double.random(in: (1 - Self.jitter)...(1 + Self.jitter))
        nextProbeAt = now.advanced(by: CheckedNumber.duration(seconds: seconds))
    }
}
