import AssetCache
import Testing
@testable import InAppDelivery

/// Seed: "When Braze fails to find a matching trigger for a particular event, it
/// will call noMatchingTriggerForEvent" — here the delegate's decision.
@Suite struct NoMatchingTriggerTests {
    @Test func eventMatchingNothingIsReportedToTheDelegate() throws {
        let h = try Harness([action("a")])
        h.custom("unknown", ["k": .string("v")], at: 3)
        let decision = try #require(h.log.decisions.first)
        #expect(decision.action == .noMatchingTrigger)
        #expect(decision.trigger == nil)
        #expect(decision.event == .customEvent(name: "unknown", properties: ["k": .string("v")]))
        #expect(h.lines == ["3 no_matching_trigger custom_event"])
    }

    @Test func messageWaitingOnTheStackIsNotFiredTwice() throws {
        let h = try Harness([action("a"), action("b")], interval: 0)
        h.custom("a", at: 0)
        h.custom("b", at: 1)
        h.custom("b", at: 2)
        #expect(h.lines == ["0 displayed a", "1 queued b message_visible", "2 no_matching_trigger custom_event"])
        #expect(h.engine.stackedIDs == ["b"])
    }
}
