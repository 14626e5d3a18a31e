import Crypto
import FixtureServer
import Foundation
import Testing

/// Issue 26: bytes that rot at rest. Each run's scrub re-reads a slice of the
/// cache, oldest-checked first; what is damaged is removed and fetched again in
/// the same run. `verify` finds the same at once.
@Suite struct ScrubTests {
    struct Setup {
        let scratch: Scratch
        let server: FixtureServer
        var cache: String { scratch.path("cache") }

        /// Four stylesheets of equal size and one ZIP of HTML, in one manifest.
        static func make() async throws -> (Setup, manifest: String) {
            let scratch = try Scratch()
            let names = try writeStyleSheets(4, in: scratch.path("www"))
            let zip = StoredZip.make([
                ("index.html", Array("<html>hello</html>\n".utf8)),
                ("css/site.css", Array("body { color: red }\n".utf8)),
            ])
            try zip.write(to: URL(fileURLWithPath: scratch.path("www/bundle.zip")))
            let server = try await FixtureServer.start(root: scratch.path("www"))
            let triggers = htmlMessages(names, server: server.url)
                + [inapp("bundle", ["type": "HTML_FULL", "zipped_assets_url": server.url("bundle.zip")])]
            let manifest = try scratch.write("m.json", try manifestJSON(triggers))
            return (Setup(scratch: scratch, server: server), manifest)
        }

        func prefetch(_ arguments: [String]) async throws -> CommandResult {
            try await CommandRunner.prefetch(arguments + ["--cache-dir", cache])
        }

        func run(_ manifest: String, _ extra: [String] = []) async throws -> (CommandResult, ScrubReport) {
            let result = try await prefetch(["run", manifest, "--json"] + extra)
            let report = try JSONDecoder().decode(ScrubReport.self, from: result.stdout)
            return (result, report)
        }
    }

    /// The report's `scrub` key, through its documented names only.
    struct ScrubReport: Decodable {
        struct Scrub: Decodable {
            struct Damage: Decodable {
                var kind, path, problem: String
            }
            var objects, trees, bytes_read, cache_bytes: Int
            var damaged: [Damage]
        }
        var scrub: Scrub
        var assets: [Report.Asset]
    }

    static func sha256Hex(_ text: String) -> String {
        SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    static func flipByte(_ path: String) throws {
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[bytes.count / 2] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: path))
    }

    @Test func aFlippedByteInAnObjectIsFoundRemovedAndFetchedAgainInTheSameRun() async throws {
        let (setup, manifest) = try await Setup.make()
        let (first, _) = try await setup.run(manifest)
        #expect(first.status == 0)
        let victim = try #require(try first.report().assets.first { $0.kind == "file" })
        let path = try #require(victim.path)
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        try Self.flipByte(path)

        let verify = try await setup.prefetch(["verify", "--json"])
        #expect(verify.status == 1)
        #expect(verify.stdoutText.contains("\"object_corrupt\""))

        setup.server.resetLog()
        let (second, report) = try await setup.run(manifest)
        let requests = setup.server.requests()
        try await setup.server.stop()
        #expect(second.status == 0)
        #expect(report.scrub.damaged.map(\.kind) == ["object_corrupt"])
        #expect(report.scrub.damaged.map(\.path) == [path])
        #expect(report.scrub.objects == 5 && report.scrub.trees == 1)
        #expect(report.scrub.bytes_read == report.scrub.cache_bytes)
        #expect(report.assets.first { $0.url == victim.url }?.outcome == "downloaded")
        #expect(requests.filter { victim.url.hasSuffix($0.path) }.count == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original)
        #expect(try await setup.prefetch(["verify"]).status == 0)
    }

    @Test func anEditedTreeFileIsFoundRemovedAndUnpackedAgain() async throws {
        let (setup, manifest) = try await Setup.make()
        let first = try await setup.prefetch(["run", manifest, "--json"])
        let tree = try #require(try first.report().assets.first { $0.kind == "archive" }?.path)
        let page = "\(tree)/index.html"
        try Data("<html>defaced</html>\n".utf8).write(to: URL(fileURLWithPath: page))

        let verify = try await setup.prefetch(["verify"])
        #expect(verify.status == 1)
        #expect(verify.stderr.contains("\(page): content hashes to"))

        let (second, report) = try await setup.run(manifest)
        try await setup.server.stop()
        #expect(second.status == 0)
        #expect(report.scrub.damaged.map(\.kind) == ["tree_file_corrupt"])
        #expect(report.scrub.damaged.map(\.path) == [page])
        #expect(try String(contentsOfFile: page, encoding: .utf8) == "<html>hello</html>\n")
        #expect(try await setup.prefetch(["verify"]).status == 0)
    }

    @Test func verifyFindsAMissingAnExtraAndAnUnlistedTreeAtOnce() async throws {
        let (setup, manifest) = try await Setup.make()
        let first = try await setup.prefetch(["run", manifest, "--json", "--scrub-bytes", "0", "--scrub-percent", "0"])
        try await setup.server.stop()
        let tree = try #require(try first.report().assets.first { $0.kind == "archive" }?.path)
        let list = tree + ".sha256sums"
        #expect(try String(contentsOfFile: list, encoding: .utf8).hasSuffix("  css/site.css\n" + "\(Self.sha256Hex("<html>hello</html>\n"))  index.html\n"))

        try FileManager.default.removeItem(atPath: "\(tree)/css/site.css")
        #expect(try await setup.prefetch(["verify", "--json"]).stdoutText.contains("\"tree_file_missing\""))
        try Data("x".utf8).write(to: URL(fileURLWithPath: "\(tree)/css/site.css"))
        try Data("x".utf8).write(to: URL(fileURLWithPath: "\(tree)/extra.js"))
        let extra = try await setup.prefetch(["verify", "--json"])
        #expect(extra.stdoutText.contains("\"tree_file_corrupt\"") || extra.stdoutText.contains("\"tree_file_unexpected\""))
        try FileManager.default.removeItem(atPath: list)
        let unlisted = try await setup.prefetch(["verify", "--repair", "--json"])
        #expect(unlisted.status == 1)
        #expect(unlisted.stdoutText.contains("\"tree_unlisted\""))
        #expect(!FileManager.default.fileExists(atPath: tree))
    }

    /// The documented period: a slice of p percent re-reads every entry within
    /// ⌈100 / p⌉ runs: at 25%, four flipped stylesheets are all found
    /// within four runs, a few entries a run.
    @Test func aSliceReachesEveryEntryWithinTheDocumentedNumberOfRuns() async throws {
        let (setup, manifest) = try await Setup.make()
        let slice = ["--scrub-bytes", "0", "--scrub-percent", "25"]
        let (first, _) = try await setup.run(manifest, slice)
        let paths = try first.report().assets.compactMap { $0.kind == "file" ? $0.path : nil }
        #expect(paths.count == 4)
        for path in paths { try Self.flipByte(path) }

        var found: [String] = []
        var runs = 0
        while found.count < 4 && runs < 8 {
            let (_, report) = try await setup.run(manifest, slice)
            runs += 1
            // The slice is a quarter of the bytes: a stylesheet, and the small
            // ZIP and tree when their turn comes first.
            #expect(report.scrub.objects + report.scrub.trees <= 3)
            found += report.scrub.damaged.map(\.path)
        }
        try await setup.server.stop()
        #expect(Set(found) == Set(paths))
        #expect(runs <= 4)
        #expect(try await setup.prefetch(["verify"]).status == 0)
        // Where the next scrub goes on is in state.json, an entry's name; no
        // file keeps a time per entry.
        let state = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(setup.cache)/state.json"))) as? [String: Any]
        let after = try #require((state?["scrub"] as? [String: Any])?["after"] as? String)
        #expect(after.utf8.count == 64 || (after.utf8.count == 65 && after.hasSuffix("/")), "\(after)")
        #expect(!FileManager.default.fileExists(atPath: "\(setup.cache)/scrub.json"))
    }

    @Test func aPercentageOver100IsAUsageError() async throws {
        let scratch = try Scratch()
        let manifest = try scratch.write("m.json", try manifestJSON([]))
        let result = try await CommandRunner.prefetch(["run", manifest, "--cache-dir", scratch.path("c"), "--scrub-percent", "101"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--scrub-percent must be between 0 and 100"))
    }

    @Test func theMetricsFileCountsWhatTheScrubReadAndFound() async throws {
        let (setup, manifest) = try await Setup.make()
        let first = try await setup.prefetch(["run", manifest, "--json"])
        let path = try #require(try first.report().assets.first { $0.kind == "file" }?.path)
        try Self.flipByte(path)
        let file = setup.scratch.path("prefetch.prom")
        let (second, report) = try await setup.run(manifest, ["--metrics-file", file])
        try await setup.server.stop()
        #expect(second.status == 0)
        let metrics = try PrometheusText(String(decoding: try Data(contentsOf: URL(fileURLWithPath: file)), as: UTF8.self))
        let value = { (name: String, labels: [String: String]) in
            metrics.samples.first { sample in sample.name == name && labels.allSatisfy { sample.labels[$0.key] == $0.value } }?.value
        }
        #expect(value("prefetch_scrub_damaged_total", [:]) == 1)
        #expect(value("prefetch_scrub_read_bytes_total", [:]) == Double(report.scrub.bytes_read))
        #expect(value("prefetch_scrub_checked_total", ["what": "object"]) == 5)
        #expect(value("prefetch_scrub_checked_total", ["what": "tree"]) == 1)
    }
}
