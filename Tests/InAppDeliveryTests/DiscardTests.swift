import AssetCache
import Testing
@testable import InAppDelivery

/// Seed, "Discarding in-app messages", and "after being discarded, the in-app
/// message can be triggered later on by another instance of the trigger event".
@Suite struct DiscardTests {
    var modal: [String: Any] { ["type": "MODAL", "image_url": Harness.image] }

    @Test func presenterDiscardDropsTheMessage() throws {
        let h = try Harness([action("a")])
        h.presenter.answers["a"] = [.discard]
        h.custom("a", at: 0)
        #expect(h.lines == ["0 discarded a presenter_discarded"])
        #expect(h.engine.stackedIDs.isEmpty)
        #expect(h.engine.visible == nil)
    }

    @Test func assetFailedAtDisplayTimeDiscardsTheMessage() throws {
        let h = try Harness([action("shown"), action("pic", message: modal)], interval: 0)
        h.custom("shown", at: 0)
        h.custom("pic", at: 1)
        // Evicted and refetched badly after the trigger: readiness is asked again at display.
        h.readiness.states[Harness.imageURL] = .failed(AssetFailure(.httpStatus, "HTTP 404"))
        h.at(2)
        h.engine.dismiss()
        h.engine.displayNext()
        #expect(h.lines == ["0 displayed shown", "1 queued pic message_visible", "2 discarded pic asset_download_failed"])
        #expect(h.log.decisions.last?.detail == "http_status: HTTP 404")
    }

    @Test func invalidAssetDiscardsTheMessage() throws {
        let h = try Harness([action("pic", message: modal)], states: [
            Harness.imageURL: .failed(AssetFailure(.invalidImage, "bad CRC")),
        ])
        h.custom("pic", at: 0)
        #expect(h.lines == ["0 discarded pic asset_invalid"])
    }

    @Test func timeoutPassedBeforeDisplayDiscardsTheMessage() throws {
        let h = try Harness([action("a"), action("b", ["timeout": 10])], interval: 0)
        h.custom("a", at: 0)
        h.custom("b", at: 1)
        h.at(12)
        h.engine.dismiss()
        h.engine.displayNext()
        #expect(h.lines == ["0 displayed a", "1 queued b message_visible", "12 discarded b display_timeout"])
    }

    @Test func messageShownAtItsTimeoutIsStillInTime() throws {
        let h = try Harness([action("a"), action("b", ["timeout": 10])], interval: 0)
        h.custom("a", at: 0)
        h.custom("b", at: 1)
        h.at(11)
        h.engine.dismiss()
        h.engine.displayNext()
        #expect(h.lines.last == "11 displayed b")
    }

    @Test func defaultTimeoutIsThirtySecondsAfterTheDelay() throws {
        let h = try Harness([action("a")])
        h.engine.appDidEnterBackground()
        h.custom("a", at: 0)
        h.at(31)
        h.engine.appWillEnterForeground()
        #expect(h.lines == ["0 queued a background", "31 discarded a display_timeout"])
    }

    @Test func orientationMismatchDiscardsTheMessage() throws {
        let landscape: [String: Any] = ["type": "SLIDEUP", "orientation": "LANDSCAPE"]
        let h = try Harness([action("wide", message: landscape)], interval: 0)
        h.custom("wide", at: 0)
        h.engine.orientationChanged(to: .landscape)
        h.custom("wide", at: 1)
        #expect(h.lines == ["0 discarded wide orientation_mismatch", "1 displayed wide"])
    }

    @Test func anyOrientationFitsEveryDevice() throws {
        let h = try Harness([action("a", message: ["type": "SLIDEUP", "orientation": "ANY"])], orientation: .landscape)
        h.custom("a", at: 0)
        #expect(h.lines == ["0 displayed a"])
    }

    @Test func fullMessageWithoutAnImageIsDiscarded() throws {
        let h = try Harness([action("full", message: ["type": "FULL"])])
        h.custom("full", at: 0)
        #expect(h.lines == ["0 discarded full full_without_image"])
    }

    @Test func imageOnlyModalWithoutAnImageIsDiscarded() throws {
        let h = try Harness([action("graphic", message: ["type": "MODAL", "image_style": "GRAPHIC"])])
        h.custom("graphic", at: 0)
        #expect(h.lines == ["0 discarded graphic image_only_modal_without_image"])
    }

    @Test func discardedMessageCanFireAgainOnALaterEvent() throws {
        let h = try Harness([action("a")], interval: 0)
        h.presenter.answers["a"] = [.discard]
        h.custom("a", at: 0)
        h.custom("a", at: 1)
        #expect(h.lines == ["0 discarded a presenter_discarded", "1 displayed a"])
    }

    @Test func discardingTheTopOffersTheNextOne() throws {
        let h = try Harness([action("old"), action("new", message: ["type": "FULL"])], interval: 0)
        h.engine.appDidEnterBackground()
        h.custom("old", at: 0)
        h.custom("new", at: 1)
        h.at(2)
        h.engine.appWillEnterForeground()
        #expect(h.lines.suffix(2) == ["2 discarded new full_without_image", "2 displayed old"])
    }
}
