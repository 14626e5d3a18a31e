import AssetCache
import Testing
@testable import InAppDelivery

/// Seed: "When a trigger event has more than one eligible in-app message, only the
/// in-app message with the highest priority will be delivered."
@Suite struct PriorityTests {
    @Test func onlyTheHighestPriorityMessageIsDelivered() throws {
        let open: [[String: Any]] = [["type": "open"]]
        let h = try Harness([action("low", priority: 1, on: open), action("high", priority: 5, on: open)])
        h.engine.handle(.sessionStart)
        #expect(h.lines == ["0 displayed high"])
        #expect(h.presenter.asked == ["high"])
        #expect(h.engine.stackedIDs.isEmpty, "the loser is not delivered at all, not even stacked")
    }

    @Test func priorityTiesBreakByManifestOrder() throws {
        let open: [[String: Any]] = [["type": "open"]]
        let h = try Harness([action("first", priority: 2, on: open), action("second", priority: 2, on: open)])
        h.engine.handle(.sessionStart)
        #expect(h.lines == ["0 displayed first"])
    }

    @Test func messageBeforeItsStartTimeIsNotEligible() throws {
        let open: [[String: Any]] = [["type": "open"]]
        let h = try Harness([
            action("later", priority: 9, on: open, ["start_time": Harness.start + 60]),
            action("now", priority: 1, on: open),
        ])
        h.engine.handle(.sessionStart)
        h.engine.dismiss()
        h.at(60)
        h.engine.handle(.sessionStart)
        #expect(h.lines == ["0 displayed now", "60 displayed later"])
    }

    @Test func messagePastItsEndTimeIsNotEligible() throws {
        let h = try Harness([action("sale", ["end_time": Harness.start + 100])], interval: 0)
        h.custom("sale", at: 100)
        h.engine.dismiss()
        h.custom("sale", at: 101)
        #expect(h.lines == ["100 displayed sale", "101 no_matching_trigger custom_event"])
    }
}
