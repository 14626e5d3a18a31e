import AssetCache
import Testing
@testable import InAppDelivery

/// Seed, "The in-app message stack": adding, showing (LIFO), and returning to it.
@Suite struct StackTests {
    @Test func triggeredMessagesStackWhileOneIsVisibleAndDisplayNextShowsThemLastInFirstOut() throws {
        let h = try Harness([action("shown"), action("one"), action("two"), action("three")], interval: 0)
        h.custom("shown", at: 0)
        h.custom("one", at: 1)
        h.custom("two", at: 2)
        h.custom("three", at: 3)
        #expect(h.engine.stackedIDs == ["three", "two", "one"])
        h.at(10)
        h.engine.dismiss()
        #expect(h.presenter.presented.map(\.id) == ["shown"], "dismissing alone shows nothing")
        for second in [11.0, 12, 13] {
            h.at(second)
            h.engine.displayNext()
            h.engine.dismiss()
        }
        #expect(h.lines == [
            "0 displayed shown",
            "1 queued one message_visible", "2 queued two message_visible", "3 queued three message_visible",
            "11 displayed three", "12 displayed two", "13 displayed one",
        ])
        #expect(h.engine.stackedIDs.isEmpty)
    }

    @Test func messageTriggeredInTheBackgroundIsQueuedAndShownOnForeground() throws {
        let h = try Harness([action("a")])
        h.at(0)
        h.engine.appDidEnterBackground()
        h.custom("a", at: 5)
        #expect(h.presenter.asked.isEmpty)
        h.at(9)
        h.engine.appWillEnterForeground()
        #expect(h.lines == ["5 queued a background", "9 displayed a"])
    }

    @Test func anotherMessageVisibleReturnsTheNewOneToTheStack() throws {
        let h = try Harness([action("a"), action("b")], interval: 0)
        h.custom("a", at: 0)
        h.custom("b", at: 1)
        #expect(h.lines == ["0 displayed a", "1 queued b message_visible"])
        #expect(h.presenter.asked == ["a"], "the presenter is not asked while another message is visible")
    }

    @Test func presenterLaterPutsTheMessageBackOnTop() throws {
        let h = try Harness([action("a"), action("b")], interval: 0)
        h.presenter.answers["b"] = [.later]
        h.custom("a", at: 0)
        h.custom("b", at: 1)
        h.at(2)
        h.engine.dismiss()
        h.engine.displayNext()
        #expect(h.engine.stackedIDs == ["b"])
        h.at(3)
        h.engine.displayNext()
        #expect(h.lines == [
            "0 displayed a", "1 queued b message_visible", "2 queued b presenter_later", "3 displayed b",
        ])
    }

    @Test func presenterLaterKeepsTheMessageAboveOlderOnes() throws {
        let h = try Harness([action("old"), action("new")], interval: 0)
        h.engine.appDidEnterBackground()
        h.custom("old", at: 0)
        h.custom("new", at: 1)
        h.presenter.answers["new"] = [.later]
        h.at(2)
        h.engine.appWillEnterForeground()
        #expect(h.engine.stackedIDs == ["new", "old"])
        h.engine.displayNext()
        #expect(h.lines.suffix(2) == ["2 queued new presenter_later", "2 displayed new"])
    }

    @Test func sessionStartOffersTheStack() throws {
        let h = try Harness([action("a")])
        h.engine.appDidEnterBackground()
        h.custom("a", at: 0)
        h.engine.appWillEnterForeground()
        h.engine.dismiss()
        h.engine.appDidEnterBackground()
        h.engine.appWillEnterForeground()
        // Nothing left: a session start with no open trigger and an empty stack decides only that.
        h.at(5)
        h.engine.handle(.sessionStart)
        #expect(h.lines == ["0 queued a background", "0 displayed a", "5 no_matching_trigger session_start"])
    }

    @Test func sessionStartShowsWhatWaitsEvenWhenItFiresNothing() throws {
        let h = try Harness([action("a"), action("b")], interval: 0)
        h.custom("a", at: 0)
        h.custom("b", at: 1)
        h.engine.dismiss()
        h.at(2)
        h.engine.handle(.sessionStart)
        #expect(h.lines.suffix(2) == ["2 no_matching_trigger session_start", "2 displayed b"])
    }

    @Test func pushClickOffersTheStack() throws {
        let h = try Harness([action("a"), action("b")], interval: 0)
        h.custom("a", at: 0)
        h.custom("b", at: 1)
        h.engine.dismiss()
        h.at(2)
        h.engine.handle(.pushClick(campaignID: "c-9"))
        #expect(h.lines.suffix(2) == ["2 no_matching_trigger push_click", "2 displayed b"])
    }

    @Test func otherEventsDoNotOfferTheStack() throws {
        let h = try Harness([action("a"), action("b")], interval: 0)
        h.custom("a", at: 0)
        h.custom("b", at: 1)
        h.engine.dismiss()
        h.custom("nothing", at: 2)
        #expect(h.engine.stackedIDs == ["b"])
    }

    @Test func displayNextOnAnEmptyStackDecidesNothing() throws {
        let h = try Harness([action("a")])
        h.engine.displayNext()
        #expect(h.lines.isEmpty)
    }

    @Test func locallyCreatedMessagesAreAddedToTheStack() throws {
        let h = try Harness([action("a")])
        h.custom("a", at: 0)
        h.at(1)
        h.engine.add(localMessage: InAppMessage(type: .slideup, message: "made here"), id: "local-1")
        h.engine.dismiss()
        h.engine.displayNext()
        // A local message is no trigger: not rate-limited, and it does not count.
        h.engine.dismiss()
        h.custom("a", at: 30)
        #expect(h.lines == ["0 displayed a", "1 queued local-1 message_visible", "1 displayed local-1", "30 displayed a"])
        #expect(h.presenter.presented[1].isLocal)
        #expect(h.presenter.presented[1].message.text == "made here")
    }

    @Test func locallyCreatedMessageShowsAtOnceWhenNothingIsVisible() throws {
        let h = try Harness([])
        let image = try AssetURL(parsing: "http://elsewhere.test/x.png")
        h.engine.add(localMessage: InAppMessage(type: .modal, imageURL: image), id: "local")
        #expect(h.lines == ["0 displayed local"], "its image is the presenter's to fetch, as with prefetch: false")
    }
}
