import FixtureServer
import Foundation
import Testing

/// `run --jitter` (README's cron line): a random pause before the first
/// request, logged at info; --offline skips it, and a signal ends it at once.
@Suite struct JitterTests {
    static func site() async throws -> (Scratch, FixtureServer, String) {
        let scratch = try Scratch()
        let names = try writeStyleSheets(1, in: scratch.path("www"))
        let server = try await FixtureServer.start(root: scratch.path("www"))
        let manifest = try scratch.write("m.json", try manifestJSON([inapp("page", ["type": "HTML", "asset_urls": [server.url(names[0])]])]))
        return (scratch, server, manifest)
    }

    /// The delay the run says it waits, from "waiting 1.37 s (--jitter 2) before the first request".
    static func loggedDelay(_ stderr: String, jitter: String = "2") -> Double? {
        guard let line = stderr.split(separator: "\n").first(where: { $0.contains("(--jitter \(jitter)) before the first request") }),
              let words = line.components(separatedBy: "waiting ").last?.split(separator: " "), let first = words.first
        else { return nil }
        return Double(first)
    }

    @Test func theFirstRequestWaitsForTheDelayTheRunLogs() async throws {
        let (scratch, server, manifest) = try await Self.site()
        let launched = Date().timeIntervalSince1970
        let result = try await CommandRunner.prefetch([
            "run", manifest, "--cache-dir", scratch.path("cache"), "--jitter", "2", "--log-level", "info",
        ])
        let requests = server.requests()
        try await server.stop()
        #expect(result.status == 0, "\(result.stderr)")
        let delay = try #require(Self.loggedDelay(result.stderr), "\(result.stderr)")
        #expect((0...2).contains(delay))
        let first = try #require(requests.map(\.startedAt).min())
        // An order, not a speed: the process started after `launched`.
        #expect(first >= launched + delay, "first request \(first - launched) s after launch, delay \(delay) s")
    }

    @Test func offlineSkipsTheWait() async throws {
        let (scratch, server, manifest) = try await Self.site()
        let cache = scratch.path("cache")
        #expect(try await CommandRunner.prefetch(["run", manifest, "--cache-dir", cache]).status == 0)
        server.resetLog()
        // --max-run-time bounds a wait that would otherwise be skipped: were it
        // not, the run would stop with its deadline instead of exiting 0.
        let offline = try await CommandRunner.prefetch([
            "run", manifest, "--cache-dir", cache, "--offline", "--jitter", "600", "--max-run-time", "5", "--log-level", "info",
        ])
        let requests = server.requests()
        try await server.stop()
        #expect(offline.status == 0, "\(offline.stderr)")
        #expect(!offline.stderr.contains("--jitter"), "\(offline.stderr)")
        #expect(requests.isEmpty)
    }

    @Test(arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143))])
    func aSignalEndsTheWaitAtOnce(signal: Int32, status: Int32) async throws {
        // The wait is drawn at random: a draw shorter than the time this test
        // took to send the signal (a loaded machine has taken over 30 s) was
        // over before it and tests nothing. Such a draw is run again; five in a
        // row fail the test.
        for _ in 0..<5 {
            let (scratch, server, manifest) = try await Self.site()
            let launched = ContinuousClock.now
            let child = try RunningCommand([
                "run", manifest, "--cache-dir", scratch.path("cache"), "--jitter", "600", "--log-level", "info",
            ])
            #expect(await child.stderrContains("(--jitter 600) before the first request"))
            child.signal(signal)
            let signalledAfter = (ContinuousClock.now - launched) / .seconds(1)
            let result = await child.wait()
            let requests = server.requests()
            try await server.stop()
            if let drawn = Self.loggedDelay(result.stderr, jitter: "600"), drawn <= signalledAfter + 1 { continue }
            #expect(result.status == status && !result.signaled, "\(result.stderr)")
            #expect(result.stderr.contains("during the --jitter wait; nothing was fetched"))
            #expect(requests.isEmpty)
            return
        }
        Issue.record("five draws of --jitter 600 in a row were over before the signal was sent")
    }

    @Test func aJitterAsLongAsTheRunIsRefused() async throws {
        let result = try await CommandRunner.prefetch(["run", "m.json", "--jitter", "600", "--max-run-time", "600"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--jitter 600 must be shorter than --max-run-time 600"), "\(result.stderr)")
    }
}
