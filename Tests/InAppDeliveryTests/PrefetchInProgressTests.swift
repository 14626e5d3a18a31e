import AssetCache
import Testing
@testable import InAppDelivery

/// Issue 40, point 3: while a prefetch run in the same process fetches a
/// message's asset, the message waits for it instead of being discarded.
@Suite struct PrefetchInProgressTests {
    var modal: [String: Any] { ["type": "MODAL", "image_url": Harness.image] }

    @Test func aMessageWaitsForTheRunAndIsShownWhenItDecidesIt() throws {
        let h = try Harness([action("pic", message: modal)], states: [:])
        h.engine.prefetchStarted()
        h.custom("pic", at: 0)
        #expect(h.lines == ["0 queued pic assets_pending"])
        #expect(h.engine.visible == nil)
        // The run commits the image and decides the message.
        h.readiness.states[Harness.imageURL] = .available(path: "/cache/img")
        h.at(1)
        h.engine.prefetchDecided("pic")
        #expect(h.lines == ["0 queued pic assets_pending", "1 displayed pic"])
        #expect(h.presenter.presented.map(\.id) == ["pic"])
    }

    @Test func withoutARunTheMissingAssetIsADiscardAsBefore() throws {
        let h = try Harness([action("pic", message: modal)], states: [:])
        h.custom("pic", at: 0)
        #expect(h.lines == ["0 discarded pic asset_download_failed"])
    }

    @Test func whatStillWaitsWhenTheRunEndsIsJudgedOnceMore() throws {
        let h = try Harness([action("pic", message: modal), action("other", message: modal)], interval: 0, states: [:])
        h.engine.prefetchStarted()
        h.custom("pic", at: 0)
        h.custom("other", at: 1)
        // The run ends having failed the image: both are discarded then, not before.
        h.readiness.states[Harness.imageURL] = .failed(AssetFailure(.httpStatus, "HTTP 404"))
        h.at(2)
        h.engine.prefetchEnded()
        #expect(h.lines == [
            "0 queued pic assets_pending", "1 queued other assets_pending",
            "2 discarded pic asset_download_failed", "2 discarded other asset_download_failed",
        ])
    }

    @Test func aMessageThatWaitsPastItsTimeoutIsDiscardedForIt() throws {
        let h = try Harness([action("pic", message: modal, ["timeout": 5])], states: [:])
        h.engine.prefetchStarted()
        h.custom("pic", at: 0)
        #expect(h.engine.nextDueTime == Harness.start + 5)
        h.at(6)
        h.engine.releaseDueMessages()
        #expect(h.lines == ["0 queued pic assets_pending", "6 discarded pic display_timeout"])
        // Decided after that: nothing is left to show.
        h.readiness.states[Harness.imageURL] = .available(path: "/cache/img")
        h.engine.prefetchDecided("pic")
        #expect(h.engine.visible == nil)
    }
}
