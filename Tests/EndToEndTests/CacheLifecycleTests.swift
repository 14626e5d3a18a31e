import FixtureServer
import Foundation
import Testing

/// Issue 3 through the real binary: revalidation, offline readiness, verify and
/// repair, eviction, manifests from the network.
@Suite struct CacheLifecycleTests {
    struct Setup {
        let scratch: Scratch
        let server: FixtureServer
        let names: [String]
        var root: String { scratch.path("www") }
        var cache: String { scratch.path("cache") }

        static func make(files: Int = 6) async throws -> Setup {
            let scratch = try Scratch()
            let names = try writeStyleSheets(files, in: scratch.path("www"))
            let server = try await FixtureServer.start(root: scratch.path("www"))
            return Setup(scratch: scratch, server: server, names: names)
        }

        func manifest(_ query: String = "", name: String = "m.json", only: [String]? = nil) throws -> String {
            try scratch.write(name, try manifestJSON(htmlMessages(only ?? names, server: server.url, query: query)))
        }

        func prefetch(_ arguments: [String]) async throws -> CommandResult {
            try await CommandRunner.prefetch(arguments + ["--cache-dir", cache])
        }
    }

    @Test func secondRunMakesOnlyConditionalRequestsAndTransfersNoBody() async throws {
        let setup = try await Setup.make()
        let manifest = try setup.manifest("?cache_control=no-cache")
        #expect(try await setup.prefetch(["run", manifest, "--json"]).status == 0)
        setup.server.resetLog()

        let second = try await setup.prefetch(["run", manifest, "--json"])
        let requests = setup.server.requests()
        try await setup.server.stop()

        #expect(second.status == 0)
        #expect(try second.report().assets.allSatisfy { $0.outcome == "revalidated" })
        #expect(requests.count == setup.names.count)
        #expect(requests.allSatisfy { $0.status == 304 && $0.bodyBytes == 0 && $0.headers["if-none-match"] != nil })
    }

    @Test func withinMaxAgeNoRequestIsMade() async throws {
        let setup = try await Setup.make()
        let manifest = try setup.manifest("?cache_control=max-age%3D3600")
        #expect(try await setup.prefetch(["run", manifest]).status == 0)
        setup.server.resetLog()

        let second = try await setup.prefetch(["run", manifest, "--json"])
        let requests = setup.server.requests()
        try await setup.server.stop()

        #expect(try second.report().assets.allSatisfy { $0.outcome == "fresh" })
        #expect(requests.isEmpty)
    }

    @Test func noStoreIsUsedButNeverCached() async throws {
        let setup = try await Setup.make(files: 1)
        let manifest = try setup.manifest("?cache_control=no-store")
        let first = try await setup.prefetch(["run", manifest, "--json"])
        #expect(first.status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(setup.cache)/refs").isEmpty)
        let second = try await setup.prefetch(["run", manifest, "--json"])
        try await setup.server.stop()
        #expect(try second.report().assets.map(\.outcome) == ["downloaded"])
    }

    @Test func changedFileIsRefetched() async throws {
        let setup = try await Setup.make(files: 2)
        let manifest = try setup.manifest("?cache_control=no-cache")
        let first = try await setup.prefetch(["run", manifest, "--json"]).report()
        _ = try writeStyleSheets(1, in: setup.root, bytes: 5000, salt: "changed")

        let second = try await setup.prefetch(["run", manifest, "--json"]).report()
        try await setup.server.stop()

        let url = setup.server.url("style0.css?cache_control=no-cache")
        #expect(second.asset(url)?.outcome == "downloaded")
        #expect(second.asset(url)?.sha256 != first.asset(url)?.sha256)
        let path = try #require(second.message("html0")?.assets.first?.path)
        #expect(try String(contentsOfFile: path, encoding: .utf8).contains("changed"))
        #expect(second.asset(setup.server.url("style1.css?cache_control=no-cache"))?.outcome == "revalidated")
    }

    @Test func transientFailureKeepsTheCachedCopyAndGoneDropsIt() async throws {
        let setup = try await Setup.make(files: 2)
        let manifest = try setup.manifest("?cache_control=no-cache")
        #expect(try await setup.prefetch(["run", manifest]).status == 0)
        try FileManager.default.removeItem(atPath: "\(setup.root)/style1.css")
        try await setup.server.stop()

        // Server down: both are stale, still ready.
        let down = try await setup.prefetch(["run", manifest, "--json"])
        #expect(down.status == 3, "stale copies in use: \(down.stderr)")
        #expect(try down.report().assets.allSatisfy { $0.outcome == "stale" && $0.error?.kind == "network" })

        // Server back without style1.css: 404 drops it.
        let again = try await FixtureServer.start(root: setup.root, port: setup.server.port)
        let gone = try await setup.prefetch(["run", manifest, "--json"]).report()
        try await again.stop()
        #expect(gone.message("html0")?.status == "ready")
        #expect(gone.message("html1")?.verdict == "discarded:asset_download_failed")
        #expect(gone.asset(setup.server.url("style1.css?cache_control=no-cache"))?.error?.kind == "http_status")
    }

    @Test func offlineAndPlanAnswerFromTheCacheWithTheServerStopped() async throws {
        let setup = try await Setup.make(files: 3)
        let cachedManifest = try setup.manifest()
        #expect(try await setup.prefetch(["run", cachedManifest]).status == 0)
        let withMissing = try setup.scratch.write("more.json", try manifestJSON(
            htmlMessages(setup.names, server: setup.server.url) + [inapp("new", ["type": "MODAL", "image_url": setup.server.url("new.png")])]))
        try await setup.server.stop()

        let before = snapshot(setup.cache)
        let plan = try await setup.prefetch(["plan", withMissing, "--json"])
        #expect(plan.status == 1)
        #expect(try plan.report().assets.filter { $0.outcome == "cached" }.count == 3)
        #expect(try plan.report().message("new")?.detail?.hasPrefix("offline_miss") == true)
        #expect(snapshot(setup.cache) == before)

        let offline = try await setup.prefetch(["run", cachedManifest, "--offline", "--json"])
        #expect(offline.status == 0)
        #expect(try offline.report().assets.allSatisfy { $0.outcome == "cached" })
    }

    @Test func damagedObjectIsFoundRepairedAndRefetched() async throws {
        let setup = try await Setup.make(files: 3)
        let manifest = try setup.manifest()
        let report = try await setup.prefetch(["run", manifest, "--json"]).report()
        let victim = try #require(report.assets.first?.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: victim)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: victim))
        bytes[10] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: victim))

        let found = try await setup.prefetch(["verify"])
        #expect(found.status == 1)
        #expect(found.stderr.contains(victim))
        let repaired = try await setup.prefetch(["verify", "--repair"])
        #expect(repaired.status == 1)
        #expect(!FileManager.default.fileExists(atPath: victim))

        setup.server.resetLog()
        let rerun = try await setup.prefetch(["run", manifest, "--json"])
        #expect(rerun.status == 0)
        #expect(try rerun.report().assets.filter { $0.outcome == "downloaded" }.map(\.path) == [victim])
        #expect(try await setup.prefetch(["verify"]).status == 0)
        try await setup.server.stop()
    }

    @Test func evictionKeepsTheCacheWithinBudgetAndTheLatestManifest() async throws {
        let setup = try await Setup.make(files: 12)
        let budget = 20 * 1024
        for round in 0..<4 {
            let slice = Array(setup.names[(round * 3)..<(round * 3 + 3)])
            let manifest = try setup.manifest(name: "m\(round).json", only: slice)
            #expect(try await setup.prefetch(["run", manifest, "--budget", "\(budget)"]).status == 0)
        }
        try await setup.server.stop()

        let status = try await setup.prefetch(["status", "--json"])
        let usage = try JSONSerialization.jsonObject(with: status.stdout) as! [String: Any]
        #expect((usage["bytes"] as! Int) <= budget)
        #expect((usage["budget"] as! Int) == budget)
        let latest = try await setup.prefetch(["plan", setup.scratch.path("m3.json"), "--json"])
        #expect(latest.status == 0)
        #expect(try latest.report().totals.ready == 3)
        let oldest = try await setup.prefetch(["plan", setup.scratch.path("m0.json"), "--json"])
        #expect(try oldest.report().totals.ready < 3)
    }

    @Test func manifestFromTheNetworkAndExit69WhenItCannotBeFetched() async throws {
        let setup = try await Setup.make(files: 2)
        let json = try manifestJSON(htmlMessages(setup.names, server: setup.server.url))
        try Data(json.utf8).write(to: URL(fileURLWithPath: "\(setup.root)/manifest.json"))
        let url = setup.server.url("manifest.json?cache_control=no-cache")

        let first = try await setup.prefetch(["run", url, "--json"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try first.report().totals.ready == 2)
        try await setup.server.stop()

        // With the server down, the stored copy stands in (StoredManifestTests);
        // a cache that has none exits 69 and keeps nothing of the attempt.
        let stored = try await setup.prefetch(["run", url])
        #expect(stored.status == 3, "its assets on stale copies: \(stored.stderr)")
        let other = setup.scratch.path("other-cache")
        let down = try await CommandRunner.prefetch(["run", url, "--cache-dir", other])
        #expect(down.status == 69)
        #expect(down.stderr.contains("could not be fetched"))
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: "\(other)/refs")) ?? []).isEmpty)
    }
}
