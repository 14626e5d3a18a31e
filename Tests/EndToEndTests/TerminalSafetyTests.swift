import FixtureServer
import Foundation
import Testing

/// Issue 19, points 7 and 8, through the binary: what a manifest or a server
/// says is printed escaped (no terminal escape, bell or bidi override reaches
/// stdout or stderr, while the JSON report keeps the exact strings), and a
/// password in a URL appears nowhere, whether the run succeeds or fails.
@Suite struct TerminalSafetyTests {
    /// Clear the screen, set the window title, ring the bell, reverse the text.
    static let hostileID = "id\u{1B}[2J\u{1B}]0;owned\u{07}\u{202E}txt.exe"

    static func rawControls(in text: String) -> [String] {
        var found: [String] = []
        if text.contains("\u{1B}") { found.append("ESC") }
        if text.contains("\u{07}") { found.append("BEL") }
        if text.contains("\u{202E}") { found.append("U+202E") }
        if text.unicodeScalars.contains(where: { (0x80...0x9F).contains($0.value) }) { found.append("C1") }
        return found
    }

    @Test func controlCharactersFromTheManifestAndTheServerAreEscapedInTextAndExactInJSON() async throws {
        let scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: scratch.path("www"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Package.assets.path + "/img/gray.png", toPath: scratch.path("www/gray.png"))
        // A server's page under an image URL: its first words are quoted in the detail.
        _ = try scratch.write("www/page.png", "\u{202E}\u{9B}2J reversed and cleared\n")
        let server = try await FixtureServer.start(root: scratch.path("www"))
        let reversed = server.url("\u{202E}gnp.exe")
        let page = server.url("page.png")
        let manifest = try scratch.write("m.json", try manifestJSON([
            inapp(Self.hostileID, ["type": "MODAL", "image_url": reversed]),
            inapp("type", ["type": "CAROUSEL\u{1B}[31m\u{9B}", "image_url": page]),
            inapp("page", ["type": "MODAL", "image_url": page]),
            inapp("ready\u{07}", ["type": "MODAL", "image_url": server.url("gray.png")]),
            ["id": "push\u{1B}[2J", "type": "push\u{1B}[2J", "data": [:]],
        ]))
        let cache = scratch.path("cache")

        for flags in [["--verbose"], ["--log-level", "debug"], ["--json", "--log-level", "debug"]] {
            let result = try await CommandRunner.prefetch(["run", manifest, "--cache-dir", cache] + flags)
            #expect(result.status == 1, "\(flags): \(result.stderr)")
            #expect(Self.rawControls(in: result.stderr).isEmpty, "\(flags) stderr: \(result.stderr)")
            if flags.contains("--json") {
                // JSON escapes C0 controls and keeps every string exact.
                #expect(!result.stdoutText.contains("\u{1B}") && !result.stdoutText.contains("\u{07}"), "\(result.stdoutText)")
                let report = try result.report()
                #expect(report.message(Self.hostileID)?.reason == "asset_download_failed")
                #expect(report.asset(reversed)?.error?.kind == "http_status")
                #expect(report.message("type")?.detail?.contains("CAROUSEL\u{1B}[31m\u{9B}") == true)
                #expect(report.message("page")?.detail?.contains("'\u{202E}\u{9B}2J") == true)
                #expect(report.message("ready\u{07}")?.status == "ready")
            } else {
                #expect(Self.rawControls(in: result.stdoutText).isEmpty, "\(flags) stdout: \(result.stdoutText)")
                #expect(result.stdoutText.contains(#"id\x1B[2J\x1B]0;owned\x07\u{202E}txt.exe"#), "\(result.stdoutText)")
                #expect(result.stdoutText.contains(#"CAROUSEL\x1B[31m\u{009B}"#), "\(result.stdoutText)")
                #expect(result.stdoutText.contains(#"'\u{202E}\u{009B}2J"#), "\(result.stdoutText)")
            }
            if flags.contains("debug") {
                #expect(result.stderr.contains(#"skipped action of type 'push\x1B[2J'"#), "\(result.stderr)")
            }
        }

        let plan = try await CommandRunner.prefetch(["plan", manifest, "--cache-dir", cache, "--verbose"])
        #expect(plan.status == 1)
        #expect(Self.rawControls(in: plan.stdoutText + plan.stderr).isEmpty, "\(plan.stdoutText)\(plan.stderr)")

        let events = try scratch.write("events.jsonl", #"{"at": 0, "event": "custom_event", "name": "x\u001b[2J\u0007\u202e"}"# + "\n")
        let simulate = try await CommandRunner.prefetch(["simulate", manifest, "--events", events, "--cache-dir", cache])
        try await server.stop()
        #expect(simulate.status == 0, "\(simulate.stderr)")
        #expect(simulate.stdoutText.contains(#"x\x1B[2J\x07\u{202E}"#), "\(simulate.stdoutText)")
        #expect(Self.rawControls(in: simulate.stdoutText + simulate.stderr).isEmpty)
    }

    @Test func aPasswordInAURLIsPrintedNowhereWhetherTheRunSucceedsOrFails() async throws {
        let scratch = try Scratch()
        let server = try await FixtureServer.start(root: Package.assets.path)
        let password = "hunter2-s3cret"
        let withCredentials = { (path: String) in
            server.url(path).replacingOccurrences(of: "http://", with: "http://user:\(password)@")
        }
        let good = withCredentials("img/rgb.png")
        let missing = withCredentials("img/missing.png")
        let manifest = try scratch.write("m.json", try manifestJSON([
            inapp("good", ["type": "MODAL", "image_url": good]),
            inapp("missing", ["type": "MODAL", "image_url": missing]),
        ]))
        let succeeding = try scratch.write("ok.json", try manifestJSON([inapp("good", ["type": "MODAL", "image_url": good])]))
        let cache = scratch.path("cache")

        var results: [(String, CommandResult)] = []
        for flags in [["--verbose", "--log-level", "debug"], ["--json", "--log-level", "trace"]] {
            results.append(("failing \(flags)", try await CommandRunner.prefetch(["run", manifest, "--cache-dir", cache] + flags)))
            results.append(("succeeding \(flags)", try await CommandRunner.prefetch(["run", succeeding, "--cache-dir", cache] + flags)))
        }
        // The manifest itself behind a password, and not there: exit 69 names the URL.
        let remote = try await CommandRunner.prefetch(["run", withCredentials("m.json"), "--cache-dir", cache, "--log-level", "debug"])
        try await server.stop()
        #expect(remote.status == 69, "\(remote.stderr)")
        #expect(remote.stderr.contains("user:***@127.0.0.1"), "\(remote.stderr)")
        results.append(("remote manifest", remote))

        for (name, result) in results {
            #expect(!result.stdoutText.contains(password), "\(name) stdout: \(result.stdoutText)")
            #expect(!result.stderr.contains(password), "\(name) stderr: \(result.stderr)")
        }
        #expect(results[0].1.status == 1 && results[1].1.status == 0)
        #expect(results[0].1.stdoutText.contains("http://user:***@127.0.0.1:\(server.port)/img/missing.png"))
        let report = try results[2].1.report()
        let redacted = missing.replacingOccurrences(of: password, with: "***")
        #expect(report.asset(redacted)?.error?.kind == "http_status", "\(report.assets.map(\.url))")
        #expect(report.message("good")?.status == "ready")
    }
}
