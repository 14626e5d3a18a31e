import FixtureServer
import Foundation
import Testing

/// The report's `totals.connections`: what libcurl says it opened
/// (CURLINFO_NUM_CONNECTS), against what the run must have needed.
@Suite struct ConnectionCountTests {
    @Test func oneTransferAtATimeKeepsOneConnectionAlive() async throws {
        let scratch = try Scratch()
        let names = try writeStyleSheets(5, in: scratch.path("www"))
        let server = try await FixtureServer.start(root: scratch.path("www"))
        let manifest = try scratch.write("m.json", try manifestJSON(names.map { inapp($0, ["type": "HTML", "asset_urls": [server.url($0)]]) }))

        let result = try await CommandRunner.prefetch(["run", manifest, "--cache-dir", scratch.path("cache"), "--json", "--concurrency", "1"])
        let requests = server.requests()
        try await server.stop()

        #expect(result.status == 0, "\(result.stderr)")
        let report = try result.report()
        #expect(requests.count == 5)
        #expect(report.assets.reduce(0) { $0 + $1.attempts } == 5)
        #expect(report.totals.connections == 1)
    }

    @Test func aRunWithNothingToFetchOpensNone() async throws {
        let scratch = try Scratch()
        let manifest = try scratch.write("m.json", try manifestJSON([inapp("text", ["type": "SLIDEUP", "message": "hello"])]))

        let result = try await CommandRunner.prefetch(["run", manifest, "--cache-dir", scratch.path("cache"), "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try result.report().totals.connections == 0)
    }
}
