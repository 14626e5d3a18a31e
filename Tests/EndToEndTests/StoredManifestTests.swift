import FixtureServer
import Foundation
import Testing

/// Issue 28, point 3: a device keeps its messages when the manifest's server is
/// not there — the copy an earlier run stored stands in, with a warning — and
/// `--offline` asks no server anything, whatever the age of what is stored.
@Suite struct StoredManifestTests {
    struct Setup {
        let scratch: Scratch
        let server: FixtureServer
        var cache: String { scratch.path("cache") }
        var manifestURL: String { server.url("m.json") }

        /// A manifest of two image messages, and a first run that stores it
        /// and its assets (fresh for an hour).
        static func make() async throws -> Setup {
            let scratch = try Scratch()
            let www = scratch.path("www")
            try FileManager.default.createDirectory(atPath: "\(www)/img", withIntermediateDirectories: true)
            for name in ["rgb.png", "gray.png"] {
                try FileManager.default.copyItem(atPath: Package.assets.appendingPathComponent("img/\(name)").path, toPath: "\(www)/img/\(name)")
            }
            let server = try await FixtureServer.start(root: www)
            let triggers = ["rgb", "gray"].map { name in
                inapp(name, ["type": "MODAL", "image_url": server.url("img/\(name).png?cache_control=max-age%3D3600")])
            }
            try Data(try manifestJSON(triggers).utf8).write(to: URL(fileURLWithPath: "\(www)/m.json"))
            let setup = Setup(scratch: scratch, server: server)
            let first = try await setup.run([])
            #expect(first.status == 0, "\(first.stderr)")
            return setup
        }

        func run(_ extra: [String], url: String? = nil) async throws -> CommandResult {
            try await CommandRunner.prefetch(["run", url ?? manifestURL, "--cache-dir", cache, "--json", "--retries", "0"] + extra)
        }
    }

    @Test func withTheServerDownTheStoredManifestStandsIn() async throws {
        let setup = try await Setup.make()
        let url = setup.manifestURL
        try await setup.server.stop()
        let run = try await setup.run([], url: url)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("the manifest could not be fetched"), "\(run.stderr)")
        #expect(run.stderr.contains("using the copy stored"), "\(run.stderr)")
        #expect(try run.report().messages.map(\.verdict) == ["ready", "ready"])
        let origin = try Self.origin(run)
        #expect(origin?.source == "stored" && origin?.url == url)
        #expect((origin?.fetched_at ?? .infinity) < Date().timeIntervalSince1970)
    }

    /// The report's `manifest`, through its documented keys.
    struct Origin: Decodable {
        var url, source: String
        var fetched_at: Double
    }

    static func origin(_ run: CommandResult) throws -> Origin? {
        struct Document: Decodable { var manifest: Origin? }
        return try JSONDecoder().decode(Document.self, from: run.stdout).manifest
    }

    @Test func aFetchedManifestSaysSo() async throws {
        let setup = try await Setup.make()
        let run = try await setup.run([])
        try await setup.server.stop()
        #expect(try Self.origin(run)?.source == "fetched")
    }

    @Test func offlineAsksNoServerAnything() async throws {
        let setup = try await Setup.make()
        setup.server.resetLog()
        let run = try await setup.run(["--offline"])
        let requests = setup.server.requests()
        try await setup.server.stop()
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try run.report().messages.map(\.verdict) == ["ready", "ready"])
        #expect(try Self.origin(run)?.source == "stored")
        #expect(requests.isEmpty, "\(requests.map(\.target))")
    }

    @Test func offlineWithNothingStoredExits69() async throws {
        let scratch = try Scratch()
        let run = try await CommandRunner.prefetch([
            "run", "http://127.0.0.1:9/m.json", "--cache-dir", scratch.path("cache"), "--offline",
        ])
        #expect(run.status == 69, "\(run.stderr)")
        #expect(run.stderr.contains("no copy of http://127.0.0.1:9/m.json is stored"), "\(run.stderr)")
    }

    /// The server is up but failing: a route that answers 503 once the first
    /// run has stored the manifest. The stored copy stands in as when the
    /// server is gone, and the run exits as readiness decides.
    @Test func aServerAnswering503IsAnOutageTheStoredManifestRidesThrough() async throws {
        let setup = try await Setup.make()
        // `fail_first=1` answers the first request to this URL 503 and later
        // ones 200; `--retries 1` stores it, and after `resetLog` (which
        // starts the count again) `--retries 0` meets only the 503.
        let url = setup.server.url("m.json?fail_first=1&fail_status=503")
        let first = try await setup.run(["--retries", "1"], url: url)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try Self.origin(first)?.source == "fetched")
        setup.server.resetLog()
        let run = try await setup.run([], url: url)
        let statuses = setup.server.requests().filter { $0.target.hasPrefix("/m.json") }.map(\.status)
        try await setup.server.stop()
        #expect(statuses == [503], "the manifest was asked for once, and answered 503")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("503"), "\(run.stderr)")
        #expect(run.stderr.contains("using the copy stored"), "\(run.stderr)")
        #expect(try run.report().messages.map(\.verdict) == ["ready", "ready"])
        #expect(try Self.origin(run)?.source == "stored")
    }

    /// The Done-when's own check: `strace -f -e trace=network` of an offline
    /// run whose stored manifest is stale shows no `connect` (nor any other
    /// socket call that could reach a server).
    @Test func offlineWithAStaleStoredManifestMakesNoNetworkCall() async throws {
        let setup = try await Setup.make()
        // `no-cache` makes the stored manifest stale from the moment it is stored.
        let url = setup.server.url("m.json?cache_control=no-cache")
        let first = try await setup.run([], url: url)
        #expect(first.status == 0, "\(first.stderr)")
        try await setup.server.stop()
        let trace = setup.scratch.path("strace.txt")
        let traced = try await SystemTool.run("strace", [
            "-f", "-e", "trace=network", "-o", trace,
            CommandRunner.binDirectory.appendingPathComponent("prefetch").path,
            "run", url, "--cache-dir", setup.cache, "--json", "--offline",
        ])
        #expect(try traced.report().messages.map(\.verdict) == ["ready", "ready"])
        let calls = try String(contentsOfFile: trace, encoding: .utf8)
        let network = calls.split(separator: "\n").filter { $0.contains("connect(") || $0.contains("sendto(") || $0.contains("socket(AF_INET") }
        #expect(network.isEmpty, "\(network)")
    }

    /// Issue 36, point 1: the stored manifest is pinned. Neither the run's own
    /// eviction under a tiny --budget nor `gc --budget 0` removes it, so with
    /// the server down it still stands in for `run`, and `plan` reads it.
    @Test func evictionAndGCBudget0KeepTheStoredManifest() async throws {
        let setup = try await Setup.make()
        let url = setup.manifestURL
        let tight = try await setup.run(["--budget", "1"])
        #expect(tight.status == 0, "\(tight.stderr)")
        let gc = try await CommandRunner.prefetch(["gc", "--budget", "0", "--cache-dir", setup.cache])
        #expect(gc.status == 0, "\(gc.stderr)")
        let ls = try await CommandRunner.prefetch(["ls", "--cache-dir", setup.cache])
        #expect(ls.status == 0, "\(ls.stderr)")
        #expect(ls.stdoutText.contains(url), "\(ls.stdoutText)")
        try await setup.server.stop()
        let run = try await setup.run([], url: url)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("using the copy stored"), "\(run.stderr)")
        #expect(try Self.origin(run)?.source == "stored")
        let plan = try await CommandRunner.prefetch(["plan", url, "--cache-dir", setup.cache])
        #expect(plan.status == 0, "\(plan.stderr)")
    }

    /// A 404 is the server's answer, not an outage: no stored copy stands in.
    @Test func aManifestTheServerNoLongerHasIsNotReplaced() async throws {
        let setup = try await Setup.make()
        try FileManager.default.removeItem(atPath: setup.scratch.path("www/m.json"))
        let run = try await setup.run([])
        try await setup.server.stop()
        #expect(run.status == 69, "\(run.stderr)")
        #expect(!run.stderr.contains("using the copy stored"), "\(run.stderr)")
    }
}

/// Issue 28, point 4 (part): a mistyped `--cache-dir` is said, never turned
/// into an empty cache that reports nothing, and nothing is created for it.
@Suite struct MissingCacheDirectoryTests {
    @Test(arguments: [["gc"], ["gc", "--json"], ["status"], ["verify"], ["verify", "--repair"], ["ready"], ["ready", "some-id"], ["ls"], ["ls", "--json"]])
    func aCacheDirectoryThatDoesNotExistIsAUsageErrorAndNothingIsMade(_ command: [String]) async throws {
        let scratch = try Scratch()
        let typo = scratch.path("nonexistent/typo")
        let result = try await CommandRunner.prefetch(command + ["--cache-dir", typo])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("prefetch: error: no cache at '\(typo)': the directory does not exist; check --cache-dir"))
        #expect(!FileManager.default.fileExists(atPath: scratch.path("nonexistent")))
    }
}
