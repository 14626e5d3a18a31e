import Foundation
import Testing

/// `run` and `plan` say what in a manifest will never work (issue 36, point 2;
/// docs/manifest.md, "Warnings"): an unknown trigger type, a key its message's
/// type does not take, filters that never pass; `--strict` refuses them.
@Suite struct ManifestWarningTests {
    /// One message that guessed `session_start` for `open`, one with `imageurl` for `image_url`.
    static func mistakes(_ scratch: Scratch) throws -> String {
        try scratch.write("m.json", try manifestJSON([
            ["id": "welcome", "type": "inapp", "trigger_condition": [["type": "session_start"]],
             "data": ["type": "MODAL", "message": "Welcome"]],
            inapp("sale", ["type": "MODAL", "message": "Sale", "imageurl": "http://127.0.0.1:9/sale.png"]),
        ]))
    }

    static let sessionStart = Report.Warning(
        kind: "unknown_trigger_type", path: "triggers[0].trigger_condition[0].type",
        message: "unknown trigger type 'session_start'; it never fires", suggestion: "open")
    static let imageURL = Report.Warning(
        kind: "unknown_key", path: "triggers[1].data.imageurl",
        message: "a MODAL message takes no 'imageurl'; it is ignored", suggestion: "image_url")

    static func warningLines(_ stderr: String) -> [String] {
        stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("prefetch: warning: ") }
    }

    @Test func runWarnsOnceForEachWithASuggestionOnStderrAndInTheReport() async throws {
        let scratch = try Scratch()
        let result = try await CommandRunner.prefetch(["run", try Self.mistakes(scratch), "--cache-dir", scratch.path("cache"), "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.warningLines(result.stderr) == [
            "prefetch: warning: triggers[0].trigger_condition[0].type: unknown trigger type 'session_start'; it never fires; did you mean 'open'?",
            "prefetch: warning: triggers[1].data.imageurl: a MODAL message takes no 'imageurl'; it is ignored; did you mean 'image_url'?",
        ])
        let report = try result.report()
        #expect(report.version == "1.6.0")
        #expect(report.warnings == [Self.sessionStart, Self.imageURL])
    }

    @Test func planWarnsTheSame() async throws {
        let scratch = try Scratch()
        let manifest = try Self.mistakes(scratch)
        _ = try await CommandRunner.prefetch(["run", scratch.write("empty.json", #"{"triggers":[]}"#), "--cache-dir", scratch.path("cache")])
        let result = try await CommandRunner.prefetch(["plan", manifest, "--cache-dir", scratch.path("cache"), "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.warningLines(result.stderr).count == 2)
        #expect(result.stderr.contains("did you mean 'open'?") && result.stderr.contains("did you mean 'image_url'?"))
        #expect(try result.report().warnings == [Self.sessionStart, Self.imageURL])
    }

    @Test func strictExitsTwoNamingEachAndLeavesTheCacheUntouched() async throws {
        let scratch = try Scratch()
        let manifest = try Self.mistakes(scratch)
        for command in ["run", "plan"] {
            let result = try await CommandRunner.prefetch([command, manifest, "--cache-dir", scratch.path("cache"), "--strict"])
            #expect(result.status == 2, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("prefetch: error: triggers[0].trigger_condition[0].type: unknown trigger type 'session_start'"))
            #expect(result.stderr.contains("prefetch: error: triggers[1].data.imageurl: a MODAL message takes no 'imageurl'"))
            #expect(result.stderr.contains("--strict: the manifest has 2 mistakes"))
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.path("cache")), "a refused manifest touches no cache")
    }

    @Test func strictInTheConfigurationFileRefusesToo() async throws {
        let scratch = try Scratch()
        let config = try scratch.write("prefetch.conf", "strict = yes\n")
        let result = try await CommandRunner.prefetch([
            "run", try Self.mistakes(scratch), "--cache-dir", scratch.path("cache"), "--config", config,
        ])
        #expect(result.status == 2, "\(result.stderr)")
    }

    @Test func aSkippedPushIsNoMistakeForStrict() async throws {
        let scratch = try Scratch()
        let manifest = try scratch.write("m.json", try manifestJSON([
            ["id": "p", "type": "push", "data": [:]], inapp("m", ["type": "MODAL", "message": "hi"]),
        ]))
        let result = try await CommandRunner.prefetch(["run", manifest, "--cache-dir", scratch.path("cache"), "--strict", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try result.report().warnings == [Report.Warning(kind: "skipped_action", path: "triggers[0]", message: "skipped action of type 'push'")])
    }

    @Test func filtersThatNeverPassAndAnotherTypesAssetKeyAreNamed() async throws {
        let scratch = try Scratch()
        func filter(_ comparator: Int, _ value: Double) -> [[String: Any]] {
            [["property_key": "price", "property_type": "number", "comparator": comparator, "property_value": value]]
        }
        let manifest = try scratch.write("m.json", try manifestJSON([
            ["id": "c", "type": "inapp",
             "trigger_condition": [["type": "custom_event", "data": ["event_name": "buy", "property_filters": [filter(3, 10), filter(5, 5)]]]],
             "data": ["type": "HTML", "image_url": "http://127.0.0.1:9/a.png"]],
        ]))
        let result = try await CommandRunner.prefetch(["run", manifest, "--cache-dir", scratch.path("cache"), "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try result.report().warnings == [
            Report.Warning(
                kind: "unknown_key", path: "triggers[0].data.image_url",
                message: "an HTML message takes no 'image_url'; it is ignored and its asset never fetched", suggestion: "asset_urls"),
            Report.Warning(
                kind: "filter_never_passes", path: "triggers[0].trigger_condition[0].data.property_filters",
                message: "'price' must be > 10 and < 5 (groups [0] and [1]); the condition never fires"),
        ])
    }
}
