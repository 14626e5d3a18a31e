import Testing

@testable import AssetCache

/// The rules of ``LinkWatch`` (docs/limits.md#when-the-link-is-down): which
/// failures make the link suspect, which wait for news, and what the probe
/// asks for. The whole path, probe included, runs through the binary in
/// EndToEndTests/LinkDownTests.
@Suite struct LinkWatchTests {
    static let host = "http://cdn:80"
    let clock = ContinuousClock()

    func request(_ path: String, host: String = host) -> ProbeTarget {
        ProbeTarget(url: host + "/" + path, hostKey: host)
    }

    func failure(_ path: String, gateway: Bool, answered: Bool = false, host: String = host) -> LinkWatch.Failure {
        LinkWatch.Failure(host: host, request: request(path, host: host), isGateway: gateway, answeredBefore: answered)
    }

    /// A watch to which `host` has answered for `a.png`.
    func watch() -> LinkWatch {
        var watch = LinkWatch(wait: 60)
        watch.answered(request("a.png"))
        _ = watch.heard(from: Self.host, at: clock.now)
        return watch
    }

    @Test func oneURLsGatewayStatusIsItsOwnEvenWithNothingElseInFlight() {
        var watch = watch()
        let verdict1 = watch.failed(failure("b.png", gateway: true), hostsInFlight: [], transfersInFlight: 0, at: clock.now)
        #expect(verdict1 == .ordinary)
        // Its retry fails the same way: still one URL.
        let verdict2 = watch.failed(failure("b.png", gateway: true), hostsInFlight: [], transfersInFlight: 0, at: clock.now)
        #expect(verdict2 == .ordinary)
        #expect(watch.state == .up)
    }

    @Test func aGatewayStatusWaitsForTheTransfersInFlight() {
        var watch = watch()
        let verdict3 = watch.failed(failure("b.png", gateway: true), hostsInFlight: [Self.host], transfersInFlight: 2, at: clock.now)
        #expect(verdict3 == .hold)
        // A byte from one of them: the 502 was that URL's.
        _ = watch.heard(from: Self.host, at: clock.now)
        let verdict4 = watch.failed(failure("c.png", gateway: true), hostsInFlight: [], transfersInFlight: 0, at: clock.now)
        #expect(verdict4 == .ordinary)
    }

    @Test func gatewayStatusesForTwoURLsWithNothingInFlightProbeTheLastOfThem() {
        var watch = watch()
        let verdict5 = watch.failed(failure("b.png", gateway: true), hostsInFlight: [Self.host], transfersInFlight: 1, at: clock.now)
        #expect(verdict5 == .hold)
        let verdict = watch.failed(failure("c.png", gateway: true), hostsInFlight: [], transfersInFlight: 0, at: clock.now)
        // Not a.png, which answered: a caching proxy may hold it.
        #expect(verdict == .suspect(request("c.png")))
        #expect(watch.isSuspect)
        let wentDown = watch.probeFailed(at: clock.now)
        #expect(wentDown)
        #expect(watch.isDown)
    }

    @Test func aResetWithTheHostInFlightProbesTheURLTheHostAnswered() {
        var watch = watch()
        let verdict = watch.failed(failure("b.png", gateway: false), hostsInFlight: [Self.host], transfersInFlight: 3, at: clock.now)
        // b.png never answered: a URL that always resets is not the link.
        #expect(verdict == .suspect(request("a.png")))
        let verdict6 = watch.failed(failure("c.png", gateway: false), hostsInFlight: [], transfersInFlight: 0, at: clock.now)
        #expect(verdict6 == .hold)
    }

    @Test func aFailingURLThatAnsweredEarlierIsTheOneProbed() {
        var watch = watch()
        let verdict = watch.failed(failure("big.bin", gateway: false, answered: true), hostsInFlight: [], transfersInFlight: 0, at: clock.now)
        #expect(verdict == .suspect(request("big.bin")))
    }

    @Test func aHostNeverReachedIsNotTheLink() {
        var watch = LinkWatch(wait: 60)
        let verdict7 = watch.failed(failure("b.png", gateway: false), hostsInFlight: [], transfersInFlight: 0, at: clock.now)
        #expect(verdict7 == .ordinary)
        let verdict8 = watch.failed(failure("c.png", gateway: true), hostsInFlight: [], transfersInFlight: 0, at: clock.now)
        #expect(verdict8 == .ordinary)
    }

    @Test func anotherHostStillServingKeepsAResetWaiting() {
        var watch = watch()
        let other = "http://other:80"
        let verdict9 = watch.failed(failure("b.png", gateway: false), hostsInFlight: [other], transfersInFlight: 1, at: clock.now)
        #expect(verdict9 == .hold)
        #expect(watch.state == .up)
    }

    @Test func noWaitMeansEveryFailureIsOrdinary() {
        var watch = LinkWatch(wait: 0)
        watch.answered(request("a.png"))
        let verdict10 = watch.failed(failure("a.png", gateway: false, answered: true), hostsInFlight: [], transfersInFlight: 0, at: clock.now)
        #expect(verdict10 == .ordinary)
    }
}
