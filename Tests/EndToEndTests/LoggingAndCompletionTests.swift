import FixtureServer
import Foundation
import Testing

/// `--log-level`, `PREFETCH_LOG_LEVEL` and the argument parser's completion scripts.
@Suite struct LoggingAndCompletionTests {
    func failingManifest(_ scratch: Scratch, _ server: FixtureServer) throws -> String {
        try scratch.write("m.json", try manifestJSON([
            inapp("gone", ["type": "MODAL", "image_url": server.url("img/missing.png")]),
            ["id": "p", "type": "push"],
        ]))
    }

    @Test func theDefaultShowsWarningsOnlyAndTheEnvironmentRaisesIt() async throws {
        let scratch = try Scratch()
        let server = try await FixtureServer.start(root: Package.assets.path)
        let manifest = try failingManifest(scratch, server)
        let quiet = try await CommandRunner.prefetch(["run", manifest, "--cache-dir", scratch.path("cache")])
        let info = try await CommandRunner.prefetch(
            ["run", manifest, "--cache-dir", scratch.path("cache")], environment: ["PREFETCH_LOG_LEVEL": "info"])
        let flagWins = try await CommandRunner.prefetch(
            ["run", manifest, "--cache-dir", scratch.path("cache"), "--log-level", "error"], environment: ["PREFETCH_LOG_LEVEL": "debug"])
        try await server.stop()

        #expect(quiet.stderr == "prefetch: warning: triggers[1]: skipped action of type 'push'\n")
        #expect(info.stderr.contains("prefetch: info: \(server.url("img/missing.png")): failed: http_status: HTTP 404"), "\(info.stderr)")
        #expect(flagWins.stderr.isEmpty, "\(flagWins.stderr)")
    }

    @Test func anUnknownLevelIsAUsageErrorThatNamesTheLevels() async throws {
        let scratch = try Scratch()
        let manifest = try scratch.write("m.json", try manifestJSON([]))
        let result = try await CommandRunner.prefetch(
            ["run", manifest, "--cache-dir", scratch.path("cache")], environment: ["PREFETCH_LOG_LEVEL": "loud"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("PREFETCH_LOG_LEVEL='loud' is not a log level; set it to one of trace, debug, info"))
        #expect(scratch.listing() == ["m.json"], "nothing was changed")
        let flag = try await CommandRunner.prefetch(["status", "--log-level", "loud"])
        #expect(flag.status == 2)
    }

    @Test(arguments: ["bash", "zsh", "fish"])
    func completionScripts(_ shell: String) async throws {
        let result = try await CommandRunner.prefetch(["--generate-completion-script", shell])
        #expect(result.status == 0)
        for word in ["simulate", "log-level", "cache-dir", "max-run-time"] {
            #expect(result.stdoutText.contains(word), "\(shell): \(word)")
        }
    }
}
