import AssetCache
import Testing
@testable import InAppDelivery

/// Seed: "By default, we rate limit in-app messages to once every 30 seconds";
/// docs/delivery.md pins down from when and with what override.
@Suite struct MinimumIntervalTests {
    @Test func triggerInsideTheDefaultIntervalIsRateLimitedAndShownOnceItPassed() throws {
        let h = try Harness([action("a"), action("b")])
        h.custom("a", at: 0)
        h.engine.dismiss()
        h.custom("b", at: 10)
        h.custom("b", at: 31)
        #expect(h.lines == ["0 displayed a", "10 rate_limited b minimum_interval", "31 displayed b"])
        #expect(h.log.decisions[1].detail == "10 s since the last accepted trigger; 30 s required")
    }

    @Test func intervalPassesWhenTheElapsedTimeEqualsIt() throws {
        let h = try Harness([action("a"), action("b")])
        h.custom("a", at: 0)
        h.engine.dismiss()
        h.custom("b", at: 30)
        #expect(h.lines == ["0 displayed a", "30 displayed b"])
    }

    @Test func minimumIntervalIsConfigurable() throws {
        let h = try Harness([action("a"), action("b")], interval: 5)
        h.custom("a", at: 0)
        h.engine.dismiss()
        h.custom("b", at: 4)
        h.custom("b", at: 5)
        #expect(h.lines == ["0 displayed a", "4 rate_limited b minimum_interval", "5 displayed b"])
    }

    @Test func actionOverrideReplacesTheGlobalInterval() throws {
        let h = try Harness([
            action("a"),
            action("eager", ["min_seconds_since_last_trigger": 2]),
            action("patient", ["min_seconds_since_last_trigger": 60]),
        ])
        h.custom("a", at: 0)
        h.engine.dismiss()
        h.custom("eager", at: 2)
        h.engine.dismiss()
        h.custom("patient", at: 40)
        #expect(h.lines == ["0 displayed a", "2 displayed eager", "40 rate_limited patient minimum_interval"])
    }

    @Test func minusOneOverrideUsesTheGlobalInterval() throws {
        let h = try Harness([action("a"), action("b", ["min_seconds_since_last_trigger": -1])])
        h.custom("a", at: 0)
        h.engine.dismiss()
        h.custom("b", at: 29)
        #expect(h.lines.last == "29 rate_limited b minimum_interval")
    }

    @Test func intervalCountsFromTheLastAcceptedTriggerNotTheLastDisplay() throws {
        // "b" is accepted onto the stack at 30 while "a" is visible; "c" at 45 is
        // measured from 30, not from a's display at 0.
        let h = try Harness([action("a"), action("b"), action("c")])
        h.custom("a", at: 0)
        h.custom("b", at: 30)
        h.engine.dismiss()
        h.custom("c", at: 45)
        #expect(h.lines == ["0 displayed a", "30 queued b message_visible", "45 rate_limited c minimum_interval"])
    }

    @Test func rateLimitedTriggerDoesNotRestartTheInterval() throws {
        let h = try Harness([action("a"), action("b")])
        h.custom("a", at: 0)
        h.engine.dismiss()
        h.custom("b", at: 20)
        h.custom("b", at: 30)
        #expect(h.lines == ["0 displayed a", "20 rate_limited b minimum_interval", "30 displayed b"])
    }

    @Test func showingWhatIsOnTheStackIsNeverRateLimited() throws {
        let h = try Harness([action("a"), action("b")])
        h.custom("a", at: 0)
        h.custom("b", at: 30)
        h.at(31)
        h.engine.dismiss()
        h.engine.displayNext()
        #expect(h.lines == ["0 displayed a", "30 queued b message_visible", "31 displayed b"])
    }
}
