import AssetCache
import Testing
@testable import InAppDelivery

/// docs/manifest.md: `delay` seconds from trigger to display; `timeout` counts from the
/// trigger too.
@Suite struct DelayTests {
    @Test func delayHoldsTheMessageBeforeDisplay() throws {
        let h = try Harness([action("a", ["delay": 5])])
        h.custom("a", at: 0)
        #expect(h.engine.nextDueTime == Harness.start + 5)
        h.at(4)
        h.engine.releaseDueMessages()
        #expect(h.presenter.asked.isEmpty)
        h.at(5)
        h.engine.releaseDueMessages()
        #expect(h.lines == ["0 queued a delay", "5 displayed a"])
        #expect(h.engine.nextDueTime == nil)
    }

    @Test func delayedMessageCountsAsAcceptedAtItsTrigger() throws {
        let h = try Harness([action("a", ["delay": 20]), action("b")])
        h.custom("a", at: 0)
        h.custom("b", at: 25)
        #expect(h.lines == ["0 queued a delay", "25 displayed a", "25 rate_limited b minimum_interval"])
    }

    @Test func delayedMessageWaitsBehindAVisibleOne() throws {
        let h = try Harness([action("a", ["delay": 5]), action("b")], interval: 0)
        h.custom("a", at: 0)
        h.custom("b", at: 1)
        h.at(5)
        h.engine.releaseDueMessages()
        #expect(h.lines == ["0 queued a delay", "1 displayed b", "5 queued a message_visible"])
    }

    @Test func delayLongerThanTimeoutDiscardsAtDisplay() throws {
        let h = try Harness([action("a", ["delay": 10, "timeout": 5])])
        h.custom("a", at: 0)
        h.at(10)
        h.engine.releaseDueMessages()
        #expect(h.lines == ["0 queued a delay", "10 discarded a display_timeout"])
    }
}
