import AssetCache
import Testing
@testable import InAppDelivery

/// The replay behind `prefetch simulate`: a driven clock, delays released on
/// time between events, and a day of events computed rather than waited for.
@Suite struct SimulationTests {
    static func simulation(_ actions: [[String: Any]], interval: Double = 30) throws -> Simulation {
        Simulation(
            triggers: try TriggerTable(try manifest(actions)), readiness: InMemoryReadiness(),
            configuration: DeliveryConfiguration(minimumTriggerInterval: interval), startTime: Harness.start)
    }

    @Test func aDayOfEventsReplaysToTheEnd() throws {
        // An event every 10 s for 24 h, each dismissed a second later: with the
        // default interval one in three is shown and the other two rate-limited.
        let simulation = try Self.simulation([action("tick")])
        var events: [TimedEvent] = []
        for second in stride(from: 0.0, to: 86_400, by: 10) {
            events.append(TimedEvent(at: second, event: .trigger(.customEvent(name: "tick"))))
            events.append(TimedEvent(at: second + 1, event: .dismiss))
        }
        let decisions = simulation.replay(events)
        #expect(decisions.count == 8_640)
        #expect(decisions.filter { $0.action == .displayed }.count == 2_880)
        #expect(decisions.filter { $0.action == .rateLimited }.count == 5_760)
        #expect(simulation.clock.now == Harness.start + 86_391)
    }

    @Test func delayedMessagesAreReleasedWhenDueBetweenEvents() throws {
        let simulation = try Self.simulation([action("a", ["delay": 5])])
        let decisions = simulation.replay([
            TimedEvent(at: 0, event: .trigger(.customEvent(name: "a"))),
            TimedEvent(at: 60, event: .dismiss),
        ])
        #expect(decisions.map { "\($0.at - Harness.start) \($0.action.rawValue)" } == ["0.0 queued", "5.0 displayed"])
    }

    @Test func delayedMessagesStillWaitingAfterTheLastEventAreReleased() throws {
        let simulation = try Self.simulation([action("a", ["delay": 90])])
        let decisions = simulation.replay([TimedEvent(at: 0, event: .trigger(.customEvent(name: "a")))])
        #expect(decisions.map(\.action) == [.queued, .displayed])
        #expect(decisions.last?.at == Harness.start + 90)
    }

    @Test func withoutACacheEveryMessageWithAnAssetIsDiscarded() throws {
        let simulation = try Self.simulation([action("a", message: ["type": "MODAL", "image_url": Harness.image])])
        let decisions = simulation.replay([TimedEvent(at: 0, event: .trigger(.customEvent(name: "a")))])
        #expect(decisions.map(\.reason) == [.discarded(.assetDownloadFailed)])
    }
}
