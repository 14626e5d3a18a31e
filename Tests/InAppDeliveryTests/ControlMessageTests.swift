import AssetCache
import Testing
@testable import InAppDelivery

/// Control messages (the holdout of an experiment) are recorded, never shown.
@Suite struct ControlMessageTests {
    @Test func controlMessageIsRecordedAndNeverShown() throws {
        let h = try Harness([action("holdout", message: ["type": "MODAL", "is_control": true])])
        h.custom("holdout", at: 0)
        #expect(h.lines == ["0 control holdout"])
        #expect(h.presenter.asked.isEmpty)
        #expect(h.engine.stackedIDs.isEmpty)
        #expect(h.engine.visible == nil)
    }

    @Test func controlMessageCountsForTheMinimumInterval() throws {
        let h = try Harness([action("holdout", message: ["type": "MODAL", "is_control": true]), action("b")])
        h.custom("holdout", at: 0)
        h.custom("b", at: 10)
        #expect(h.lines == ["0 control holdout", "10 rate_limited b minimum_interval"])
    }
}
