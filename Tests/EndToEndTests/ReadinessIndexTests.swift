import FixtureServer
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue 28, point 1: `<cache>/readiness.json`, which a display app reads
/// instead of running the tool, and `prefetch ready`, which prints it.
@Suite struct ReadinessIndexTests {
    /// The index through its documented keys, as a display app in any language reads it.
    struct Index: Decodable {
        struct Manifest: Decodable {
            var url, path: String?
            var sha256: String
            var signed: Bool
            var source: String
            var fetched_at: Double?
        }
        struct Message: Decodable {
            struct Trigger: Decodable { var type: String }
            struct Asset: Decodable {
                var url, kind: String
                var path, entry, object, lease: String?
            }
            var id, status: String
            var reason, detail: String?
            var priority: Double
            var triggers: [Trigger]
            var assets: [Asset]
        }
        var version: String
        var computed_at: Double
        var computed_by: String
        var cache_dir: String
        var manifest: Manifest?
        var messages: [Message]

        func message(_ id: String) -> Message? { messages.first { $0.id == id } }
    }

    /// A hostile id: it would move the cursor and start a new line on a terminal.
    static let hostileID = "evil\u{1B}[2J\nid"

    struct Setup {
        let scratch: Scratch
        let server: FixtureServer
        let manifest: String
        var cache: String { scratch.path("cache") }
        var indexPath: String { "\(cache)/readiness.json" }

        /// An image, a ZIP of HTML, a 404 and a message with a hostile id, in a manifest file.
        static func make() async throws -> Setup {
            let scratch = try Scratch()
            let www = scratch.path("www")
            try FileManager.default.createDirectory(atPath: "\(www)/img", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: "\(www)/html", withIntermediateDirectories: true)
            for name in ["img/rgb.png", "img/gray.png", "html/bundle.zip"] {
                try FileManager.default.copyItem(atPath: Package.assets.appendingPathComponent(name).path, toPath: "\(www)/\(name)")
            }
            let server = try await FixtureServer.start(root: www)
            let manifest = try scratch.write("m.json", try manifestJSON([
                inapp("rgb", ["type": "MODAL", "image_url": server.url("img/rgb.png")]),
                inapp("bundle", ["type": "HTML_FULL", "zipped_assets_url": server.url("html/bundle.zip")]),
                inapp("missing", ["type": "MODAL", "image_url": server.url("img/missing.png")]),
                inapp(hostileID, ["type": "SLIDEUP", "image_url": server.url("img/gray.png")]),
            ]))
            return Setup(scratch: scratch, server: server, manifest: manifest)
        }

        func run(_ extra: [String] = []) async throws -> CommandResult {
            try await CommandRunner.prefetch(["run", manifest, "--cache-dir", cache, "--json", "--retries", "0"] + extra)
        }

        func prefetch(_ arguments: [String]) async throws -> CommandResult {
            try await CommandRunner.prefetch(arguments + ["--cache-dir", cache])
        }

        func index() throws -> Index {
            try JSONDecoder().decode(Index.self, from: Data(contentsOf: URL(fileURLWithPath: indexPath)))
        }

        /// Through scripts/schema-check.py, as `make test` validates every output.
        func validate(_ schema: String, _ path: String) async throws {
            try await SystemTool.run("python3", [Package.root.appendingPathComponent("scripts/schema-check.py").path, "--validate", schema, path])
        }
    }

    @Test func aRunLeavesAnIndexThatNamesWhatTheReportDoes() async throws {
        let setup = try await Setup.make()
        let run = try await setup.run()
        try await setup.server.stop()
        #expect(run.status == 1, "\(run.stderr)")
        let report = try run.report()
        let index = try setup.index()
        #expect(index.computed_by == "run")
        #expect(index.cache_dir == setup.cache)
        #expect(index.messages.map(\.id) == report.messages.map(\.id))
        #expect(index.messages.map(\.status) == report.messages.map(\.status))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: setup.manifest))
        let digest = try await SystemTool.run("sha256sum", [setup.manifest]).stdoutText.prefix(64)
        #expect(index.manifest?.path == setup.manifest && index.manifest?.source == "file" && index.manifest?.signed == false)
        #expect(index.manifest?.sha256 == String(digest), "\(bytes.count) bytes")
        for message in report.messages where message.status == "ready" {
            let indexed = try #require(index.message(message.id))
            #expect(indexed.assets.map(\.path) == message.assets.map { Optional($0.path) })
            #expect(indexed.triggers.map(\.type) == ["open"])
            for asset in indexed.assets {
                let path = try #require(asset.path)
                #expect(FileManager.default.fileExists(atPath: path))
                let object = try #require(asset.object)
                #expect(report.asset(asset.url)?.sha256 == object)
                #expect(asset.lease == "\(setup.cache)/leases/\(object.prefix(2))/\(object)")
            }
        }
        // The HTML bundle's entry file, byte for byte the one in the ZIP.
        let entry = try #require(index.message("bundle")?.assets.first?.entry)
        #expect(entry == "\(try #require(index.message("bundle")?.assets.first?.path))/index.html")
        #expect(try Data(contentsOf: URL(fileURLWithPath: entry))
            == Data(contentsOf: Package.assets.appendingPathComponent("html/bundle/index.html")))
        let missing = try #require(index.message("missing"))
        #expect(missing.status == "discarded" && missing.reason == "asset_download_failed")
        #expect(missing.assets.map(\.path) == [nil])
        try await setup.validate("readiness", setup.indexPath)
        // Replaced, never written in place: mode 0640 as refs, nothing left in tmp/.
        let mode = try FileManager.default.attributesOfItem(atPath: setup.indexPath)[.posixPermissions] as? Int
        #expect(mode == 0o640)
    }

    @Test func anOfflineRunOfAStoredURLSaysWhereTheManifestCameFrom() async throws {
        let setup = try await Setup.make()
        let url = setup.server.url("m.json")
        try FileManager.default.copyItem(atPath: setup.manifest, toPath: setup.scratch.path("www/m.json"))
        let online = try await setup.prefetch(["run", url, "--quiet"])
        #expect(online.status == 1, "\(online.stderr)")
        #expect(try setup.index().manifest?.source == "fetched")
        try await setup.server.stop()
        let offline = try await setup.prefetch(["run", url, "--offline", "--quiet"])
        #expect(offline.status == 1, "\(offline.stderr)")
        let manifest = try #require(try setup.index().manifest)
        #expect(manifest.url == url && manifest.source == "stored" && manifest.path == nil && manifest.fetched_at != nil)
        #expect(try setup.index().message("rgb")?.status == "ready")
        try await setup.validate("readiness", setup.indexPath)
    }

    @Test func gcRewritesTheIndexWithoutWhatItRemoved() async throws {
        let setup = try await Setup.make()
        _ = try await setup.run()
        try await setup.server.stop()
        let before = try #require(try setup.index().message("rgb")?.assets.first)
        // The ref of rgb.png gone (as a crash or a hand might leave it): gc sweeps its object.
        let refs = setup.scratch.path("cache/refs")
        for name in try FileManager.default.contentsOfDirectory(atPath: refs) {
            let text = try String(contentsOfFile: "\(refs)/\(name)", encoding: .utf8)
            if text.contains("rgb.png") { try FileManager.default.removeItem(atPath: "\(refs)/\(name)") }
        }
        let gc = try await setup.prefetch(["gc", "--json"])
        #expect(gc.status == 0, "\(gc.stderr)")
        #expect(!FileManager.default.fileExists(atPath: try #require(before.path)))
        let index = try setup.index()
        #expect(index.computed_by == "gc")
        let rgb = try #require(index.message("rgb"))
        #expect(rgb.status == "discarded" && rgb.reason == "asset_download_failed")
        #expect(rgb.detail == "offline_miss: \(before.url) is not in the cache")
        #expect(rgb.assets.first?.path == nil && rgb.assets.first?.lease == nil)
        #expect(index.message("bundle")?.status == "ready")
        for asset in index.messages.flatMap(\.assets) {
            if let path = asset.path { #expect(FileManager.default.fileExists(atPath: path), "\(path)") }
        }
        try await setup.validate("readiness", setup.indexPath)
        let ready = try await setup.prefetch(["ready", "rgb"])
        #expect(ready.status == 1)
    }

    @Test func readyAnswersFromTheIndex() async throws {
        let setup = try await Setup.make()
        _ = try await setup.run()
        try await setup.server.stop()
        let index = try setup.index()
        let rgbPath = try #require(index.message("rgb")?.assets.first?.path)
        let entry = try #require(index.message("bundle")?.assets.first?.entry)

        let one = try await setup.prefetch(["ready", "rgb"])
        #expect(one.status == 0, "\(one.stderr)")
        #expect(one.stdoutText == "rgb\tready\t\(rgbPath)\n")
        let two = try await setup.prefetch(["ready", "bundle", "rgb"])
        #expect(two.status == 0)
        #expect(two.stdoutText == "bundle\tready\t\(entry)\nrgb\tready\t\(rgbPath)\n")
        let notReady = try await setup.prefetch(["ready", "rgb", "missing"])
        #expect(notReady.status == 1)
        #expect(notReady.stdoutText.contains("\nmissing\tdiscarded\tasset_download_failed\thttp_status: "), "\(notReady.stdoutText)")
        let quiet = try await setup.prefetch(["ready", "missing", "--quiet"])
        #expect(quiet.status == 1 && quiet.stdout.isEmpty && quiet.stderr.isEmpty)
        let unknown = try await setup.prefetch(["ready", "rgb", "no-such-message"])
        #expect(unknown.status == 2)
        #expect(unknown.stdoutText == "rgb\tready\t\(rgbPath)\n")
        #expect(unknown.stderr.contains("prefetch: error: not in the readiness index: 'no-such-message'; it lists the messages of \(setup.manifest)"))
        let all = try await setup.prefetch(["ready"])
        #expect(all.status == 0)
        #expect(all.stdoutText.split(separator: "\n").count == 4)

        let json = try await setup.prefetch(["ready", "bundle", "--json"])
        #expect(json.status == 0)
        let messages = try JSONDecoder().decode([Index.Message].self, from: json.stdout)
        #expect(messages.map(\.id) == ["bundle"] && messages.first?.assets.first?.entry == entry)
        let saved = try setup.scratch.write("ready.json", json.stdoutText)
        try await setup.validate("ready", saved)
    }

    @Test func aHostileIdIsPrintedEscaped() async throws {
        let setup = try await Setup.make()
        _ = try await setup.run()
        try await setup.server.stop()
        let ready = try await setup.prefetch(["ready", Self.hostileID])
        #expect(ready.status == 0, "\(ready.stderr)")
        #expect(ready.stdoutText.hasPrefix("evil\\x1B[2J\\nid\tready\t"), "\(ready.stdoutText)")
        #expect(!ready.stdout.contains(0x1B))
        #expect(ready.stdoutText.filter { $0 == "\n" }.count == 1)
        let unknown = try await setup.prefetch(["ready", "\u{1B}]0;title\u{07}"])
        #expect(unknown.status == 2)
        #expect(!unknown.stderr.utf8.contains(0x1B) && unknown.stderr.contains("\\x1B]0;title\\x07"), "\(unknown.stderr)")
    }

    @Test func readyWithoutAnIndexIsExit2AndCreatesNothing() async throws {
        let scratch = try Scratch()
        let empty = scratch.path("empty")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let none = try await CommandRunner.prefetch(["ready", "x", "--cache-dir", empty])
        #expect(none.status == 2)
        #expect(none.stderr.contains("no readiness index in \(empty) yet: run `prefetch run MANIFEST` first"), "\(none.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: empty).isEmpty)
        // The default location before a first run: no index either, and nothing made there.
        let home = scratch.path("home")
        let defaulted = try await CommandRunner.prefetch(["ready"], environment: ["HOME": home])
        #expect(defaulted.status == 2)
        #expect(!FileManager.default.fileExists(atPath: home))
    }

    @Test func lsListsTheObjectsWithTheirUseAndLeases() async throws {
        let setup = try await Setup.make()
        _ = try await setup.run()
        try await setup.server.stop()
        let rgb = try #require(try setup.index().message("rgb")?.assets.first?.object)
        // A display app's lease on rgb.png: a shared flock on its lease file.
        let shard = "\(setup.cache)/leases/\(rgb.prefix(2))"
        try FileManager.default.createDirectory(atPath: shard, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: "\(shard)/\(rgb)", contents: nil))
        let lease = open("\(shard)/\(rgb)", O_RDONLY | O_CLOEXEC)
        #expect(lease >= 0 && flock(lease, LOCK_SH) == 0)
        defer { close(lease) }

        let text = try await setup.prefetch(["ls"])
        #expect(text.status == 0, "\(text.stderr)")
        let lines = text.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.first?.split(separator: " ", omittingEmptySubsequences: true)
            == ["OBJECT", "SIZE", "LAST", "USE", "PINNED", "LEASED", "KIND", "URL"])
        let rgbLine = try #require(lines.first { $0.hasPrefix(String(rgb.prefix(12))) })
        #expect(rgbLine.contains("  pinned  leased  image  ") && rgbLine.hasSuffix("  \(setup.server.url("img/rgb.png"))"), "\(rgbLine)")
        let bundleLine = try #require(lines.first { $0.contains("bundle.zip") })
        #expect(bundleLine.contains("  pinned  -       archive  "), "\(bundleLine)")

        let json = try await setup.prefetch(["ls", "--json"])
        #expect(json.status == 0)
        let saved = try setup.scratch.write("ls.json", json.stdoutText)
        try await setup.validate("ls", saved)
        struct Listing: Decodable {
            struct Object: Decodable {
                var sha256: String
                var urls: [String]
                var kinds: [String]
                var bytes: Int
                var tree_bytes: Int?
                var pinned, leased: Bool
            }
            var objects: [Object]
        }
        let listing = try JSONDecoder().decode(Listing.self, from: json.stdout)
        let object = try #require(listing.objects.first { $0.sha256 == rgb })
        #expect(object.leased && object.pinned && object.kinds == ["image"] && object.bytes == 2346)
        #expect(listing.objects.filter(\.leased).count == 1)
    }
}

/// Issue 28, point 1: `plan URL` reads the copy of the manifest that `run URL`
/// stored, and asks no server anything.
@Suite struct StoredPlanTests {
    @Test func planOfAURLReadsTheStoredCopyWithTheServerStopped() async throws {
        let setup = try await StoredManifestTests.Setup.make()
        let url = setup.manifestURL
        try await setup.server.stop()
        let plan = try await CommandRunner.prefetch(["plan", url, "--cache-dir", setup.cache, "--json"])
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(try plan.report().messages.map(\.verdict) == ["ready", "ready"])
        #expect(try StoredManifestTests.origin(plan)?.source == "stored")
    }

    @Test func planOfAURLWithNothingStoredSaysSo() async throws {
        let scratch = try Scratch()
        let cache = scratch.path("cache")
        try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
        // Nothing listens there: a request would fail another way.
        let url = "http://127.0.0.1:9/m.json"
        let plan = try await CommandRunner.prefetch(["plan", url, "--cache-dir", cache])
        #expect(plan.status == 2)
        #expect(plan.stderr.contains("prefetch: error: no copy of \(url) is stored in \(cache): run `prefetch run \(url)` first"), "\(plan.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache).isEmpty)
    }
}
