import FixtureServer
import Foundation
import InAppDelivery
import Testing
import AssetCache

/// Issue 40, point 3: in one process, the delivery engine shows the
/// session-start message as soon as the run has committed its assets, fed by
/// `Prefetcher.decisions()`, while the run still fetches the rest.
@Suite struct SessionStartDeliveryTests {
    final class Presenter: MessagePresenter {
        var shown: [Presentation] = []
        func displayChoice(for presentation: Presentation) -> DisplayChoice { .now }
        func present(_ presentation: Presentation) { shown.append(presentation) }
    }

    final class Decisions: DeliveryDelegate {
        var lines: [String] = []
        func deliveryEngine(_ engine: DeliveryEngine, didDecide decision: DeliveryDecision) {
            lines.append([decision.action.rawValue, decision.trigger ?? "-", decision.reason?.description].compactMap { $0 }.joined(separator: " "))
        }
    }

    @Test func theSessionStartMessageIsShownBeforeTheRunEnds() async throws {
        let server = try await FixtureServer.start(root: PrefetchProgressTests.assets)
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("session-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: cache) }
        // The other message's image takes a minute: the run is stopped once the first is shown.
        let manifest = try Manifest.decode(Data(#"""
            {"triggers": [
            {"id": "welcome", "type": "inapp", "timeout": 3600, "trigger_condition": [{"type": "open"}], "data": {"type": "MODAL", "image_url": "\#(server.url("img/rgb.png"))"}},
            {"id": "later", "type": "inapp", "trigger_condition": [{"type": "custom_event", "data": {"event_name": "x"}}], "data": {"type": "MODAL", "image_url": "\#(server.url("img/gray.png?delay_ms=60000"))"}}
            ]}
            """#.utf8))
        let store = try CacheStore.openForWriting(at: cache)
        let presenter = Presenter()
        let decisions = Decisions()
        let engine = try DeliveryEngine(manifest: manifest, readiness: store, presenter: presenter, clock: SystemClock(), delegate: decisions)
        // No stall timeout: the slow image fails only for the stop, whatever the machine's load.
        var options = PrefetchOptions()
        options.transfer.stallTimeout = 0
        let prefetcher = Prefetcher(store: store, options: options)

        let decided = prefetcher.decisions()
        engine.prefetchStarted()
        let run = Task { try await prefetcher.run(manifest) }
        engine.handle(.sessionStart)
        var heard: [String] = []
        for await message in decided {
            heard.append("\(message.id) \(message.status.rawValue)")
            engine.prefetchDecided(message.id)
            if engine.visible?.id == "welcome" { prefetcher.stop(reason: "the test saw welcome shown") }
        }
        engine.prefetchEnded()
        let report = try await run.value
        try await server.stop()

        #expect(decisions.lines.prefix(2) == ["queued welcome assets_pending", "displayed welcome"], "\(decisions.lines)")
        #expect(heard == ["welcome ready"], "a stopped run decides nothing from the stop's failures: \(heard)")
        let shown = try #require(presenter.shown.first)
        #expect(shown.assets.count == 1 && FileManager.default.fileExists(atPath: shown.assets[0].path))
        // Shown while the run still had the other asset under way: the stop failed it.
        #expect(report.assets.first { "\($0.url)".contains("gray.png") }?.outcome == .failed)
    }
}
