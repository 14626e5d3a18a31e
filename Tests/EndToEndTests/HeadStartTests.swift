import FixtureServer
import Foundation
import Testing

/// `run --head-start`: the other assets wait for the session-start one (issue 27
/// measured what that buys, BENCHMARKS.md); 0 starts everything at once. Seen
/// from the server: when each request arrived against when the session-start
/// one's response ended.
@Suite struct HeadStartTests {
    static func run(headStart: String) async throws -> (urgentEnded: Double, othersStarted: [Double]) {
        let scratch = try Scratch()
        let server = try await FixtureServer.start(root: Package.assets.path)
        let triggers = [
            ["type": "open"], ["type": "custom_event", "data": ["event_name": "a"]], ["type": "custom_event", "data": ["event_name": "b"]],
        ].enumerated().map { index, condition -> [String: Any] in
            // The session-start message's image takes 400 ms to arrive.
            let image = index == 0 ? "img/rgb.png?delay_ms=400" : ["img/gray.png", "img/palette.png"][index - 1]
            return ["id": "m\(index)", "type": "inapp", "trigger_condition": [condition],
                    "data": ["type": "MODAL", "image_url": server.url(image)]]
        }
        let manifest = try scratch.write("m.json", try manifestJSON(triggers))
        let result = try await CommandRunner.prefetch([
            "run", manifest, "--cache-dir", scratch.path("cache"), "--head-start", headStart,
        ])
        let log = server.requests()
        try await server.stop()
        #expect(result.status == 0, "\(result.stderr)")
        let urgent = try #require(log.first { $0.path == "/img/rgb.png" })
        return (urgent.endedAt, log.filter { $0.path != "/img/rgb.png" }.map(\.startedAt))
    }

    @Test func theOtherAssetsWaitForTheSessionStartOne() async throws {
        let (urgentEnded, othersStarted) = try await Self.run(headStart: "30")
        #expect(othersStarted.count == 2)
        #expect(othersStarted.allSatisfy { $0 >= urgentEnded }, "\(othersStarted) vs \(urgentEnded)")
    }

    @Test func zeroStartsEverythingAtOnce() async throws {
        let (urgentEnded, othersStarted) = try await Self.run(headStart: "0")
        #expect(othersStarted.count == 2)
        #expect(othersStarted.allSatisfy { $0 < urgentEnded }, "\(othersStarted) vs \(urgentEnded)")
    }
}
