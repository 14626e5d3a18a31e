import FixtureServer
import Foundation
import Testing

/// Issue 11, `--limit-rate`: accepted and honoured to the end of a run. That
/// the whole run stays within the rate is measured by `make bench` (row H),
/// never timed here.
@Suite struct LimitRateTests {
    @Test func runWithARateLimitCompletes() async throws {
        let scratch = try Scratch()
        let names = try writeStyleSheets(4, in: scratch.path("www"), bytes: 16 * 1024)
        let server = try await FixtureServer.start(root: scratch.path("www"))
        let manifest = try scratch.write("m.json", try manifestJSON(htmlMessages(names, server: server.url)))
        let result = try await CommandRunner.prefetch(
            ["run", manifest, "--limit-rate", "1M", "--cache-dir", scratch.path("cache"), "--json"])
        let requests = server.requests()
        try await server.stop()
        #expect(result.status == 0, "\(result.stderr)")
        let report = try result.report()
        #expect(report.totals.ready == 4)
        #expect(report.totals.downloaded_bytes == requests.reduce(0) { $0 + $1.bodyBytes })
    }

    @Test func rateBelowOneByteIsAUsageError() async throws {
        for value in ["0", "-5", "fast"] {
            let result = try await CommandRunner.prefetch(["run", "m.json", "--limit-rate", value])
            #expect(result.status == 2, "\(value): \(result.stderr)")
            #expect(result.stderr.contains("--limit-rate"), "\(result.stderr)")
        }
    }

    @Test func helpNamesEveryTrustOptionWithTheCurlFlagItMirrors() async throws {
        let help = try await CommandRunner.prefetch(["help", "run"])
        let text = help.stdoutText.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "  ", with: " ")
        for mirror in ["(curl --cacert)", "(curl -H/--header)", "(curl --limit-rate", "(signify -V -p)"] {
            #expect(text.replacingOccurrences(of: " ", with: "").contains(mirror.replacingOccurrences(of: " ", with: "")), "\(mirror) missing from:\n\(help.stdoutText)")
        }
        for option in ["--cacert <file>", "--header <name: value|@file>", "--limit-rate <size>", "--trusted-key <file>"] {
            #expect(help.stdoutText.contains(option), "\(option) missing")
        }
    }
}
