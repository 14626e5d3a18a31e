import FixtureServer
import Foundation
import Testing

/// Issue 39, point 4: docs/cache-format.md#what-keeps-an-object, row by row.
/// A cache holds one of each kind of root `gc` counts — a ref the last run's
/// manifest needed, the stored manifest of a URL run, an object a display app
/// leases (through `prefetch lease`) — and two refs that no root keeps; `gc
/// --budget 0` removes the two and keeps every root's files, each until its
/// "until" comes.
@Suite struct CacheRootsTests {
    typealias Lease = LeaseCommandTests

    /// The objects `ls --json` lists, with the URLs whose refs name each.
    struct Listing: Decodable {
        struct Object: Decodable {
            var sha256: String
            var urls: [String]
        }
        var objects: [Object]

        func urls(of sha256: String) -> [String]? { objects.first { $0.sha256 == sha256 }?.urls }
    }

    struct Setup {
        let scratch: Scratch
        let server: FixtureServer
        var cache: String { scratch.path("cache") }
        var manifestURL: String { server.url("m.json") }

        /// The server's manifest: a ZIP message and two style sheets' messages;
        /// and `needed-N.json`, a local manifest of style sheet N alone.
        static func make() async throws -> Setup {
            let scratch = try Scratch()
            let names = try writeStyleSheets(4, in: scratch.path("www"))
            try StoredZip.make([("index.html", Array("<html>on screen</html>\n".utf8))])
                .write(to: URL(fileURLWithPath: scratch.path("www/bundle.zip")))
            let server = try await FixtureServer.start(root: scratch.path("www"))
            let messages = htmlMessages(names, server: server.url)
            let bundle = inapp("bundle", ["type": "HTML_FULL", "zipped_assets_url": server.url("bundle.zip")])
            _ = try scratch.write("www/m.json", try manifestJSON([bundle, messages[0], messages[1]]))
            for index in 2...3 { _ = try scratch.write("needed-\(index).json", try manifestJSON([messages[index]])) }
            return Setup(scratch: scratch, server: server)
        }

        func prefetch(_ arguments: [String]) async throws -> CommandResult {
            try await CommandRunner.prefetch(arguments + ["--cache-dir", cache])
        }

        /// A run's report: the sha256 of each asset by the file name its URL ends in.
        func run(_ manifest: String) async throws -> [String: String] {
            let run = try await prefetch(["run", manifest, "--json"])
            #expect(run.status == 0, "\(run.stderr)")
            var objects: [String: String] = [:]
            for asset in try run.report().assets {
                objects[String(asset.url.split(separator: "/").last ?? "")] = asset.sha256
            }
            return objects
        }

        func gc() async throws -> LeaseTests.Collection {
            let gc = try await prefetch(["gc", "--budget", "0", "--json"])
            #expect(gc.status == 0, "\(gc.stderr)")
            return try JSONDecoder().decode(LeaseTests.Collection.self, from: gc.stdout)
        }

        func listing() async throws -> Listing {
            let ls = try await prefetch(["ls", "--json"])
            #expect(ls.status == 0, "\(ls.stderr)")
            return try JSONDecoder().decode(Listing.self, from: ls.stdout)
        }

        func exists(_ folder: String, _ sha256: String) -> Bool {
            var info = stat()
            return lstat("\(cache)/\(folder)/\(sha256.prefix(2))/\(sha256)", &info) == 0
        }

        /// The ref (by `ls`), the object and its lease file; and the tree, for `tree`.
        func keeps(_ url: String, _ sha256: String, tree: Bool = false) async throws -> Bool {
            try await listing().urls(of: sha256) == [url] && exists("objects", sha256) && exists("leases", sha256)
                && exists("trees", sha256) == tree
        }

        func removed(_ sha256: String) async throws -> Bool {
            try await listing().urls(of: sha256) == nil && !exists("objects", sha256) && !exists("trees", sha256)
                && !exists("leases", sha256)
        }
    }

    @Test func gcAtBudgetZeroKeepsEveryRootAndOnlyThem() async throws {
        let setup = try await Setup.make()
        let stored = try await setup.run(setup.manifestURL)
        let (bundle, sheet0, sheet1) = (try #require(stored["bundle.zip"]), try #require(stored["style0.css"]), try #require(stored["style1.css"]))
        let manifestObject = try #require(try await setup.listing().objects.first { $0.urls == [setup.manifestURL] }?.sha256)
        // The display app shows the bundle, by the index the first run wrote.
        let display = try RunningCommand(
            executable: CommandRunner.binDirectory.appendingPathComponent("prefetch"),
            ["lease", "bundle", "--cache-dir", setup.cache, "--"] + Lease.display(setup.scratch.path("pid")),
            watchingStandardOutput: true)
        #expect(await display.stdoutContains("running"))
        // The last run's manifest needs style sheet 2 alone: the server's
        // manifest, the bundle and style sheets 0 and 1 are no longer needed.
        let sheet2 = try #require(try await setup.run(setup.scratch.path("needed-2.json"))["style2.css"])

        let gc = try await setup.gc()
        #expect(gc.evicted_refs == 2 && gc.removed_objects == 2 && gc.removed_trees == 0, "\(gc)")
        #expect(gc.kept_leased == 1)
        // Row 1, a ref the last run's manifest needed: its ref and object.
        #expect(try await setup.keeps(setup.server.url("style2.css"), sheet2))
        // Row 2, the stored manifest of a URL run: its ref and object.
        #expect(try await setup.keeps(setup.manifestURL, manifestObject))
        // Row 3, an object a display app leases: it, its tree and its ref.
        #expect(try await setup.keeps(setup.server.url("bundle.zip"), bundle, tree: true))
        // No root: refs, objects and lease files gone.
        #expect(try await setup.removed(sheet0))
        #expect(try await setup.removed(sheet1))

        // Until the app ends: then the bundle goes too.
        display.signal(SIGTERM)
        #expect(await display.wait().status == 128 + SIGTERM)
        let released = try await setup.gc()
        #expect(released.evicted_refs == 1 && released.removed_objects == 1 && released.removed_trees == 1, "\(released)")
        #expect(released.kept_leased == 0)
        #expect(try await setup.removed(bundle))
        // Until a later run's manifest no longer needs it.
        #expect(try await setup.run(setup.scratch.path("needed-3.json"))["style3.css"] != nil)
        let later = try await setup.gc()
        #expect(later.evicted_refs == 1 && later.removed_objects == 1, "\(later)")
        #expect(try await setup.removed(sheet2))
        #expect(try await setup.keeps(setup.manifestURL, manifestObject))
        try await setup.server.stop()
    }
}
