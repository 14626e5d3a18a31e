import Foundation
import Testing

/// Issue 39, point 4: docs/cache-format.md#what-keeps-an-object, row by row.
/// A cache holds one of each kind of root `gc` counts — a ref the last run's
/// manifest needed, the stored manifest of a URL run, an object a display app
/// leases (through `prefetch lease`) — and a ref that no root keeps; `gc
/// --budget 0` removes that one and keeps every root's files, each until its
/// "until" comes.
@Suite struct CacheRootsTests {
    typealias Setup = LeaseTests.Setup

    /// The objects `ls --json` lists, with the URLs whose refs name each.
    struct Listing: Decodable {
        struct Object: Decodable {
            var sha256: String
            var urls: [String]
        }
        var objects: [Object]
    }

    @Test func gcAtBudgetZeroKeepsEveryRootAndOnlyThem() async throws {
        let setup = try await Setup.make()
        // The manifest `shown` (the ZIP and style sheet 0), run from the server.
        let manifestURL = setup.server.url("m.json")
        try FileManager.default.copyItem(atPath: setup.shown, toPath: setup.scratch.path("www/m.json"))
        let stored = try await Self.run(setup, manifestURL)
        let bundle = try #require(stored["bundle.zip"]), sheet0 = try #require(stored["style0.css"])
        let manifestObject = try #require(try await Self.listing(setup).first { $0.urls == [manifestURL] }?.sha256)
        // The display app shows the bundle, by the index that run wrote.
        let display = try RunningCommand(
            executable: CommandRunner.binDirectory.appendingPathComponent("prefetch"),
            ["lease", "bundle", "--cache-dir", setup.cache, "--"] + LeaseCommandTests.display(setup.scratch.path("pid")),
            watchingStandardOutput: true)
        #expect(await display.stdoutContains("running"))
        // The last run's manifest needs style sheet 1 alone: the server's
        // manifest, the bundle and style sheet 0 are no longer needed.
        let sheet1 = try #require(try await Self.run(setup, setup.later)["style1.css"])

        let gc = try await LeaseCommandTests.collect(setup, budget: "0")
        #expect(gc.evicted_refs == 1 && gc.removed_objects == 1 && gc.removed_trees == 0, "\(gc)")
        #expect(gc.kept_leased == 1)
        // Row 1, a ref the last run's manifest needed: its ref and object.
        #expect(try await Self.keeps(setup, setup.server.url("style1.css"), sheet1))
        // Row 2, the stored manifest of a URL run: its ref and object.
        #expect(try await Self.keeps(setup, manifestURL, manifestObject))
        // Row 3, an object a display app leases: it, its tree and its ref.
        #expect(try await Self.keeps(setup, setup.server.url("bundle.zip"), bundle, tree: true))
        // No root: its ref, object and lease file are gone.
        #expect(try await Self.removed(setup, sheet0))

        // Until the app ends: then the bundle goes too.
        display.signal(SIGTERM)
        #expect(await display.wait().status == 128 + SIGTERM)
        let released = try await LeaseCommandTests.collect(setup, budget: "0")
        #expect(released.evicted_refs == 1 && released.removed_objects == 1 && released.removed_trees == 1, "\(released)")
        #expect(released.kept_leased == 0)
        #expect(try await Self.removed(setup, bundle))
        // Until a later run's manifest no longer needs it.
        #expect(try await Self.run(setup, setup.shown)["bundle.zip"] == bundle)
        let later = try await LeaseCommandTests.collect(setup, budget: "0")
        #expect(later.evicted_refs == 1 && later.removed_objects == 1, "\(later)")
        #expect(try await Self.removed(setup, sheet1))
        #expect(try await Self.keeps(setup, manifestURL, manifestObject))
        try await setup.server.stop()
    }

    /// A run's objects, by the file name each asset's URL ends in.
    static func run(_ setup: Setup, _ manifest: String) async throws -> [String: String] {
        let run = try await setup.prefetch(["run", manifest, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        var objects: [String: String] = [:]
        for asset in try run.report().assets {
            objects[String(asset.url.split(separator: "/").last ?? "")] = asset.sha256
        }
        return objects
    }

    static func listing(_ setup: Setup) async throws -> [Listing.Object] {
        let ls = try await setup.prefetch(["ls", "--json"])
        #expect(ls.status == 0, "\(ls.stderr)")
        return try JSONDecoder().decode(Listing.self, from: ls.stdout).objects
    }

    /// The ref (as `ls` lists it), the object and its lease file; the tree too, for `tree`.
    static func keeps(_ setup: Setup, _ url: String, _ sha256: String, tree: Bool = false) async throws -> Bool {
        try await listing(setup).first { $0.sha256 == sha256 }?.urls == [url]
            && setup.exists(setup.objectPath(sha256)) && setup.exists(setup.leasePath(sha256))
            && setup.exists(setup.treePath(sha256)) == tree
    }

    static func removed(_ setup: Setup, _ sha256: String) async throws -> Bool {
        try await !listing(setup).contains { $0.sha256 == sha256 }
            && !setup.exists(setup.objectPath(sha256)) && !setup.exists(setup.treePath(sha256))
            && !setup.exists(setup.leasePath(sha256))
    }
}
