import FixtureServer
import Foundation
import Testing

/// Issue 7: the live progress line on a terminal, and nothing of it elsewhere.
@Suite struct ProgressTests {
    static let erase = "\r\u{1B}[2K"

    /// Six images, one of them missing, each answered after 100 ms.
    func manifest(_ scratch: Scratch, _ server: FixtureServer) throws -> String {
        var triggers = (0..<5).map { inapp("m\($0)", ["type": "MODAL", "image_url": server.url("img/rgb.png?n=\($0)&delay_ms=100")]) }
        triggers.append(inapp("gone", ["type": "MODAL", "image_url": server.url("img/missing.png")]))
        return try scratch.write("m.json", try manifestJSON(triggers))
    }

    @Test func aTerminalSeesTheLineRedrawnInPlaceAndThenErased() async throws {
        let scratch = try Scratch()
        let server = try await FixtureServer.start(root: Package.assets.path)
        let result = try await PseudoTerminal.prefetch([
            "run", try manifest(scratch, server), "--cache-dir", scratch.path("cache"), "--concurrency", "2",
        ])
        try await server.stop()

        #expect(result.status == 1, "\(result.terminal)")
        let draws = result.terminal.components(separatedBy: Self.erase).filter { !$0.isEmpty }
        #expect(draws.first == "prefetch: 0/6 assets, 0 B at 0 B/s", "\(result.terminal.debugDescription)")
        // Every draw replaces the last in place: no newline, counts never go back.
        let done = draws.compactMap { draw -> Int? in
            #expect(!draw.contains("\n"), "\(draw.debugDescription)")
            return Int(draw.dropFirst("prefetch: ".count).prefix { $0 != "/" })
        }
        #expect(done == done.sorted())
        #expect(done.last == 6)
        #expect(draws.last?.contains("1 failed") == true, "\(draws)")
        // Erased at the end: the terminal's last bytes are the erase sequence.
        #expect(result.terminal.hasSuffix(Self.erase))
        // The report itself is on stdout, a pipe: no colours there.
        #expect(result.stdout.hasPrefix("6 messages: 5 ready, 1 discarded"))
        #expect(!result.stdout.contains("\u{1B}"))
    }

    @Test func aNarrowTerminalGetsALineThatNeverWraps() async throws {
        let scratch = try Scratch()
        let server = try await FixtureServer.start(root: Package.assets.path)
        let result = try await PseudoTerminal.prefetch(
            ["run", try manifest(scratch, server), "--cache-dir", scratch.path("cache")], columns: 24)
        try await server.stop()

        let draws = result.terminal.components(separatedBy: Self.erase).filter { !$0.isEmpty }
        #expect(draws.first == "prefetch: 0/6 assets, 0")
        for draw in draws { #expect(draw.count < 24 && !draw.contains("\u{1B}"), "\(draw.debugDescription)") }
    }

    @Test func aPipeGetsNoProgressAndNoEscapes() async throws {
        let scratch = try Scratch()
        let server = try await FixtureServer.start(root: Package.assets.path)
        let result = try await CommandRunner.prefetch(["run", try manifest(scratch, server), "--cache-dir", scratch.path("cache")])
        try await server.stop()

        #expect(result.status == 1)
        #expect(result.stderr.isEmpty, "\(result.stderr.debugDescription)")
        #expect(!result.stdoutText.contains("\u{1B}"))
    }

    @Test(arguments: [["--quiet"], ["--json"]])
    func quietAndJSONShowNoProgressEvenOnATerminal(_ flags: [String]) async throws {
        let scratch = try Scratch()
        let server = try await FixtureServer.start(root: Package.assets.path)
        let result = try await PseudoTerminal.prefetch(["run", try manifest(scratch, server), "--cache-dir", scratch.path("cache")] + flags)
        try await server.stop()

        #expect(result.status == 1)
        #expect(result.terminal.isEmpty, "\(result.terminal.debugDescription)")
    }

    @Test func logLinesDoNotGarbleTheProgressLine() async throws {
        let scratch = try Scratch()
        let server = try await FixtureServer.start(root: Package.assets.path)
        let result = try await PseudoTerminal.prefetch([
            "run", try manifest(scratch, server), "--cache-dir", scratch.path("cache"), "--log-level", "info",
        ])
        try await server.stop()

        // The log line is written on a line of its own, with the progress line erased first.
        #expect(result.terminal.contains(Self.erase + "prefetch: info: " + server.url("img/missing.png")), "\(result.terminal.debugDescription)")
        #expect(result.terminal.hasSuffix(Self.erase))
    }

    @Test func coloursOnATerminalButNeverWithNoColor() async throws {
        let scratch = try Scratch()
        // Colours are decided per stream: the terminal is stderr, where errors go.
        let arguments = ["run", scratch.path("none.json"), "--cache-dir", scratch.path("cache")]
        let coloured = try await PseudoTerminal.prefetch(arguments)
        let plain = try await PseudoTerminal.prefetch(arguments, environment: ["NO_COLOR": "1"])

        #expect(coloured.status == 2 && plain.status == 2)
        #expect(coloured.terminal.contains("prefetch: \u{1B}[31merror\u{1B}[0m: cannot read the manifest"), "\(coloured.terminal.debugDescription)")
        #expect(plain.terminal.contains("prefetch: error: cannot read the manifest"))
        #expect(!plain.terminal.contains("\u{1B}"))
    }
}
