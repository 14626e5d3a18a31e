import FixtureServer
import Foundation
import Testing

/// `prefetch simulate` (docs/delivery.md) against a cache that `prefetch run` filled from
/// a real server: fixtures/simulate/events.jsonl exercises every trigger type and
/// every decision, and fixtures/simulate/expected.jsonl is what must come out.
@Suite struct SimulateTests {
    static let folder = Package.root.appendingPathComponent("fixtures/simulate")
    static let start = "1767225600"

    /// The fixture manifest pointed at a running server, and a cache that `run` filled.
    static func prefetched(_ scratch: Scratch) async throws -> String {
        let server = try await FixtureServer.start(root: Package.assets.path)
        let template = try String(contentsOf: folder.appendingPathComponent("manifest.json"), encoding: .utf8)
        let manifest = try scratch.write("manifest.json", template.replacingOccurrences(of: "http://fixtures.test", with: server.baseURL))
        let run = try await CommandRunner.prefetch(["run", manifest, "--cache-dir", scratch.path("cache"), "--json"])
        try await server.stop()
        #expect(run.status == 1, "broken and full-no-image are discarded on purpose: \(run.stderr)")
        let report = try run.report()
        #expect(report.message("broken")?.verdict == "discarded:asset_invalid")
        #expect(report.message("push-c1")?.status == "ready")
        return manifest
    }

    @Test func replayOfEveryTriggerTypeMatchesTheExpectedDecisions() async throws {
        let scratch = try Scratch()
        let manifest = try await Self.prefetched(scratch)
        let before = scratch.listing("cache")

        let result = try await CommandRunner.prefetch([
            "simulate", manifest, "--events", Self.folder.appendingPathComponent("events.jsonl").path,
            "--cache-dir", scratch.path("cache"), "--start-time", Self.start, "--json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let expected = try String(contentsOf: Self.folder.appendingPathComponent("expected.jsonl"), encoding: .utf8)
        #expect(Self.lines(result.stdoutText) == Self.lines(expected))
        #expect(result.stderr.contains("triggers[17].trigger_condition[0].data.property_filters[0][0].comparator: location comparator 13"))
        #expect(scratch.listing("cache") == before, "simulate reads the cache and writes nothing")
    }

    @Test func withoutJSONItPrintsATimelineAndACount() async throws {
        let scratch = try Scratch()
        let manifest = try await Self.prefetched(scratch)
        let result = try await CommandRunner.prefetch([
            "simulate", manifest, "--events", Self.folder.appendingPathComponent("events.jsonl").path,
            "--cache-dir", scratch.path("cache"), "--start-time", Self.start,
        ])
        #expect(result.status == 0)
        let lines = Self.lines(result.stdoutText)
        #expect(lines.first?.contains("displayed") == true && lines.first?.contains("welcome") == true)
        #expect(lines.contains { $0.contains("rate_limited") && $0.contains("10 s since the last accepted trigger; 30 s required") })
        #expect(lines.last == "27 decisions: 14 displayed, 3 queued, 2 rate_limited, 4 discarded, 1 control, 3 no_matching_trigger")
    }

    @Test func minIntervalAndOrientationOptionsReachTheEngine() async throws {
        let scratch = try Scratch()
        let manifest = try scratch.write("m.json", try manifestJSON([
            ["id": "wide", "type": "inapp", "trigger_condition": [["type": "custom_event", "data": ["event_name": "go"]]],
             "data": ["type": "SLIDEUP", "orientation": "LANDSCAPE"]],
        ]))
        let events = try scratch.write("e.jsonl", """
            {"at": 0, "event": "custom_event", "name": "go"}
            {"at": 1, "event": "dismiss"}
            {"at": 2, "event": "custom_event", "name": "go"}
            """)
        try FileManager.default.createDirectory(atPath: scratch.path("cache"), withIntermediateDirectories: true)
        let result = try await CommandRunner.prefetch([
            "simulate", manifest, "--events", events, "--cache-dir", scratch.path("cache"),
            "--min-interval", "2", "--orientation", "landscape", "--json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.lines(result.stdoutText) == [
            #"{"at": 0, "action": "displayed", "trigger": "wide", "reason": null}"#,
            #"{"at": 2, "action": "displayed", "trigger": "wide", "reason": null}"#,
        ])
        #expect(scratch.listing() == ["cache", "e.jsonl", "m.json"], "no cache is created")
        #expect(scratch.listing("cache").isEmpty, "no cache is created")
    }

    @Test func badEventLineExitsTwoNamingTheLine() async throws {
        let scratch = try Scratch()
        let manifest = try scratch.write("m.json", try manifestJSON([]))
        let events = try scratch.write("e.jsonl", """
            {"at": 0, "event": "session_start"}

            {"at": 3, "event": "custom_event"}
            """)
        let result = try await CommandRunner.prefetch(["simulate", manifest, "--events", events, "--cache-dir", scratch.path("cache")])
        #expect(result.status == 2)
        #expect(result.stderr.contains("e.jsonl:3: \"name\" is required"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func invalidRegexExitsTwoNamingTheJSONPath() async throws {
        let scratch = try Scratch()
        let filter: [String: Any] = ["property_key": "page", "property_type": "string", "comparator": 10, "property_value": "[unclosed"]
        let manifest = try scratch.write("m.json", try manifestJSON([
            inapp("a", ["type": "SLIDEUP"]),
            ["id": "b", "type": "inapp", "data": ["type": "SLIDEUP"], "trigger_condition": [
                ["type": "custom_event_property", "data": ["event_name": "e", "property_filters": [[filter]]]],
            ]],
        ]))
        let events = try scratch.write("e.jsonl", #"{"at": 0, "event": "session_start"}"#)
        let result = try await CommandRunner.prefetch(["simulate", manifest, "--events", events, "--cache-dir", scratch.path("cache")])
        #expect(result.status == 2)
        #expect(result.stderr.contains("triggers[1].trigger_condition[0].data.property_filters[0][0].property_value"), "\(result.stderr)")
    }

    static func lines(_ text: String) -> [String] {
        text.split(separator: "\n").map(String.init)
    }
}
