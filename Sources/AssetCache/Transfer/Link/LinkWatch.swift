/// Whether the device's link is down, judged from every transfer at once
/// (docs/limits.md, "When the link is down"). A dropped link resets, refuses
/// or silences every connection to every host at the same moment; a first hop
/// whose uplink is gone accepts and resets them; a gateway (a proxy on the
/// LAN) answers 502, 503 or 504 to every request. A host that is down, or a
/// URL that is broken, fails only its own. So the link is suspect when,
/// since the last byte of an answer from anywhere, and with one of the
/// failing hosts having answered earlier in the run (a host never reached at
/// all may simply be down):
///
/// - link-level failures (``AttemptFailure/isLinkLevel``) have hit every host
///   with transfers in flight, or
/// - gateway statuses (``AttemptFailure/isGatewayStatus``) for two URLs or
///   more, with every transfer in flight failed: one URL answering 503 is
///   that URL's.
///
/// A probe (``LinkProbe``, a `HEAD` along the same path) decides: an HTTP
/// answer from beyond the first hop, and the failures were the hosts' or the
/// URLs' own, counted as attempts; none, or a gateway's status, and the link
/// is down. Until one of the two is known, the failures wait with the loop,
/// uncounted (``Verdict/hold``).
///
/// Lives on the multi thread, inside the loop.
struct LinkWatch {
    enum State: Equatable {
        case up
        /// A probe is out to tell whether the link is down.
        case suspect(since: ContinuousClock.Instant)
        case down(since: ContinuousClock.Instant)
    }

    /// One failure, as the watch weighs it.
    struct Failure {
        var host: String
        var request: ProbeTarget
        /// A gateway's status rather than a failure to reach or read.
        var isGateway: Bool
        /// An earlier request of the same transfer got an answer in this run.
        var answeredBefore: Bool
    }

    /// What the loop does with a failure.
    enum Verdict: Equatable {
        /// Its asset's own: counted as an attempt, retried as usual.
        case ordinary
        /// Kept aside, uncounted: the transfers still in flight (or the probe
        /// that is out) will tell whether it was the link's.
        case hold
        /// The link is suspect: probe `target`, and keep the failure aside.
        case suspect(ProbeTarget)
    }

    /// Seconds the run waits for the link to come back (`--link-wait`); 0
    /// never treats the link as down.
    let wait: Double
    /// Probes of a link that is down wait this long, doubling up to
    /// `maxProbeDelay`, each ±`jitter`. A probe is one request, so the cap
    /// is low: the link is found back at most ~1.25 s after it returned (with
    /// a 4 s cap a 5 s outage on a 3G link cost 4 s more than curl did).
    static let firstProbeDelay = 0.25
    static let maxProbeDelay = 1.0
    static let jitter = 0.25
    /// Gateway statuses for this many URLs, and nothing else in flight, make
    /// the link suspect: one URL's 503 is that URL's.
    static let gatewayURLs = 2

    private(set) var state = State.up
    /// What probes ask for, chosen as the link became suspect (`suspicion`).
    private(set) var probeTarget: ProbeTarget?
    private(set) var nextProbeAt: ContinuousClock.Instant?
    /// Set once `wait` ran out: the link is not waited for again in this run.
    private(set) var givenUp = false
    /// Since the last byte of an answer from any host: the hosts that failed,
    /// whether any failure was link-level, and the URLs that got a gateway's
    /// status (the last of them, and a failing request whose URL had answered).
    private var failedHosts: Set<String> = []
    private var linkLevelSeen = false
    private var gatewayURLs: Set<String> = []
    private var lastGatewayFailure: ProbeTarget?
    private var answeredFailure: ProbeTarget?
    /// Per host that answered in this run, a request it answered.
    private var answered: [String: ProbeTarget] = [:]
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

    var isSuspect: Bool {
        if case .suspect = state { return true }
        return false
    }

    /// `request`, to `host`, got its first answer of the run: a URL a probe
    /// may ask for.
    mutating func answered(_ request: ProbeTarget) {
        answered[request.hostKey] = request
    }

    /// A byte of an answer arrived from `host`, or a probe got one. Returns
    /// how long the link was down when this ends an outage.
    mutating func heard(from host: String, at now: ContinuousClock.Instant) -> Duration? {
        if !failedHosts.isEmpty {
            failedHosts.removeAll()
            linkLevelSeen = false
            gatewayURLs.removeAll()
            lastGatewayFailure = nil
            answeredFailure = nil
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

    /// A failure of a request while `hostsInFlight` (the hosts of the requests
    /// still in flight, `transfersInFlight` of them) have transfers going.
    /// Not asked while the link is down: the loop parks those.
    mutating func failed(
        _ failure: Failure, hostsInFlight: Set<String>, transfersInFlight: Int, at now: ContinuousClock.Instant
    ) -> Verdict {
        guard wait > 0, !givenUp else { return .ordinary }
        if isSuspect { return .hold }
        guard state == .up else { return .ordinary }
        failedHosts.insert(failure.host)
        if failure.isGateway {
            gatewayURLs.insert(failure.request.url)
            lastGatewayFailure = failure.request
        } else {
            linkLevelSeen = true
        }
        if failure.answeredBefore { answeredFailure = failure.request }
        guard let target = suspicion(hostsInFlight: hostsInFlight, transfersInFlight: transfersInFlight) else {
            return transfersInFlight > 0 ? .hold : .ordinary
        }
        probeTarget = target
        state = .suspect(since: now)
        return .suspect(target)
    }

    /// What to probe when the failures since the last byte make the link
    /// suspect; nil when they do not. The probe asks for a failing URL that
    /// answered earlier, or after gateway statuses for one that got one (a
    /// caching proxy may answer a URL it holds while its uplink is down);
    /// else for the URL the failing host last answered, so that one URL that
    /// always fails is not taken for the link.
    private func suspicion(hostsInFlight: Set<String>, transfersInFlight: Int) -> ProbeTarget? {
        guard let answeredHost = failedHosts.first(where: { answered[$0] != nil }) else { return nil }
        let unreachable = linkLevelSeen && hostsInFlight.isSubset(of: failedHosts)
        let gatewayDown = transfersInFlight == 0 && gatewayURLs.count >= Self.gatewayURLs
        guard unreachable || gatewayDown else { return nil }
        if let answeredFailure { return answeredFailure }
        if gatewayDown, let lastGatewayFailure { return lastGatewayFailure }
        return answered[answeredHost]
    }

    /// A probe got no answer from beyond the first hop. Returns true when this takes the link down
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
