import FixtureServer
import Foundation
import Testing

/// Examples/EmbedPrefetch, the README's and the docs' embedding example, run as
/// a user would run it: against the demo manifest on a fixture server.
@Suite struct EmbedPrefetchExampleTests {
    func demoManifest(_ scratch: Scratch, _ server: FixtureServer) throws -> String {
        let template = try String(contentsOf: Package.manifests.appendingPathComponent("demo.json"), encoding: .utf8)
        return try scratch.write("demo.json", template.replacingOccurrences(of: "http://fixtures.test", with: server.baseURL))
    }

    func example(_ arguments: [String]) async throws -> CommandResult {
        try await CommandRunner.run(CommandRunner.binDirectory.appendingPathComponent("EmbedPrefetch"), arguments)
    }

    @Test func prefetchesThenPrintsTheReadyMessagesLocalFile() async throws {
        let scratch = try Scratch()
        let server = try await FixtureServer.start(root: Package.assets.path)
        let result = try await example([try demoManifest(scratch, server), scratch.path("cache"), "welcome-slideup"])
        try await server.stop()

        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.first == "fetched 19 assets, 7 failed", "\(lines)")
        #expect(lines.dropFirst().first == "13 of 26 messages ready")
        let prefix = "welcome-slideup: ready: "
        let path = try #require(lines.last.flatMap { $0.hasPrefix(prefix) ? String($0.dropFirst(prefix.count)) : nil }, "\(lines)")
        #expect(path.hasPrefix(scratch.path("cache") + "/objects/"))
        // The same bytes the server has for that image.
        #expect(FileManager.default.contents(atPath: path) == FileManager.default.contents(atPath: Package.assets.appendingPathComponent("img/rgb.png").path))
    }

    @Test func aDiscardedMessageSaysWhyAndExitsOne() async throws {
        let scratch = try Scratch()
        let server = try await FixtureServer.start(root: Package.assets.path)
        let result = try await example([try demoManifest(scratch, server), scratch.path("cache"), "zip-slip"])
        try await server.stop()

        #expect(result.status == 1, "\(result.stderr)")
        // Readiness at display time comes from the cache alone, which keeps no
        // record of failures: the unsafe ZIP was never stored, so it reads as missing.
        #expect(result.stdoutText.hasSuffix("zip-slip: discarded: asset_download_failed\n"), "\(result.stdoutText)")
    }
}
