import FixtureServer
import Foundation
import Testing

/// docs/cli.md: SIGINT, SIGTERM and --max-run-time stop a run cleanly; an interrupted
/// download resumes from its partial file with Range and If-Range.
@Suite struct InterruptionTests {
    static let twentyMiB = 20 * 1024 * 1024

    func bigFile(in scratch: Scratch) throws -> Data {
        try writeRandomFile("big.bin", size: Self.twentyMiB, in: scratch.path("www"))
    }

    @Test func maxRunTimeStopsTheRunAndTheNextRunFetchesOnlyTheRemainder() async throws {
        let scratch = try Scratch()
        let data = try bigFile(in: scratch)
        let server = try await FixtureServer.start(root: scratch.path("www"))
        let half = Self.twentyMiB / 2
        // The server sends half the body, then nothing: the run must end at its deadline.
        let url = server.url("big.bin?stall_after=\(half)")
        let manifest = try scratch.write("m.json", try manifestJSON([inapp("bundle", ["type": "HTML", "asset_urls": [url]])]))
        let cache = scratch.path("cache")

        let first = try await CommandRunner.prefetch(["run", manifest, "--cache-dir", cache, "--json", "--max-run-time", "3"])
        #expect(first.status == 1)
        #expect(try first.report().asset(url)?.error?.message.contains("--max-run-time 3 s") == true)
        #expect(try await CommandRunner.prefetch(["verify", "--cache-dir", cache]).status == 0)

        server.resetLog()
        let second = try await CommandRunner.prefetch(["run", manifest, "--cache-dir", cache, "--json"])
        let requests = server.requests()
        try await server.stop()

        #expect(second.status == 0, "\(second.stderr)")
        let report = try second.report()
        // However far the first run got before its deadline (half, unless the
        // machine is very slow), the second asks for exactly the rest.
        let range = try #require(requests.first?.headers["range"])
        let kept = try #require(Int(range.dropFirst("bytes=".count).dropLast()))
        #expect(kept > 0 && kept <= half)
        #expect(report.totals.downloaded_bytes == Self.twentyMiB - kept)
        #expect(requests.count == 1)
        #expect(requests.first?.headers["if-range"] != nil)
        #expect(requests.first?.status == 206)
        #expect(requests.first?.bodyBytes == Self.twentyMiB - kept)
        let path = try #require(report.message("bundle")?.assets.first?.path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == data)
    }

    @Test(arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143))])
    func signalStopsTheRunCleanly(signal: Int32, status: Int32) async throws {
        let scratch = try Scratch()
        let names = try writeStyleSheets(1, in: scratch.path("www"))
        _ = try bigFile(in: scratch)
        let server = try await FixtureServer.start(root: scratch.path("www"))
        let manifest = try scratch.write("m.json", try manifestJSON([
            inapp("quick", ["type": "HTML", "asset_urls": [server.url(names[0])]]),
            inapp("slow", ["type": "HTML", "asset_urls": [server.url("big.bin?stall_after=1048576")]]),
        ]))
        let cache = scratch.path("cache")

        // The stalled body never fails on its own (no stall timeout, no
        // --max-time): only the signal ends the run, however late it comes.
        let child = try RunningCommand([
            "run", manifest, "--cache-dir", cache, "--json", "--log-level", "debug", "--stall-timeout", "0", "--max-time", "0",
        ])
        // Served is not committed: the run logs each asset once it is.
        #expect(await child.stderrContains("\(names[0]): downloaded"))
        child.signal(signal)
        let result = await child.wait()
        #expect(result.status == status, "\(result.stderr)")
        #expect(try result.report().message("slow")?.verdict == "discarded:asset_download_failed")
        #expect(try await CommandRunner.prefetch(["verify", "--cache-dir", cache]).status == 0)

        let plan = try await CommandRunner.prefetch(["plan", manifest, "--cache-dir", cache, "--json"])
        try await server.stop()
        #expect(try plan.report().message("quick")?.status == "ready")
    }
}
