import FixtureServer
import Foundation
import Testing

/// Issue 28, point 2: a display app marks what it shows with a shared flock on
/// the object's lease file, and no writer removes a leased object or tree. The
/// display app here is not Swift: it is docs/examples/lease.py, or lease.c
/// compiled by `cc`, exactly as the docs quote them.
@Suite struct LeaseTests {
    struct Setup {
        let scratch: Scratch
        let server: FixtureServer
        /// A ZIP message and a style sheet's message.
        let shown: String
        /// Another style sheet's message alone: the first two dropped.
        let later: String
        var cache: String { scratch.path("cache") }

        static func make() async throws -> Setup {
            let scratch = try Scratch()
            let names = try writeStyleSheets(2, in: scratch.path("www"))
            let zip = StoredZip.make([
                ("index.html", Array("<html>on screen</html>\n".utf8)),
                ("css/site.css", Array("body { color: red }\n".utf8)),
            ])
            try zip.write(to: URL(fileURLWithPath: scratch.path("www/bundle.zip")))
            let server = try await FixtureServer.start(root: scratch.path("www"))
            let messages = htmlMessages(names, server: server.url)
            let bundle = inapp("bundle", ["type": "HTML_FULL", "zipped_assets_url": server.url("bundle.zip")])
            return Setup(
                scratch: scratch, server: server,
                shown: try scratch.write("shown.json", try manifestJSON([bundle, messages[0]])),
                later: try scratch.write("later.json", try manifestJSON([messages[1]])))
        }

        func prefetch(_ arguments: [String]) async throws -> CommandResult {
            try await CommandRunner.prefetch(arguments + ["--cache-dir", cache])
        }

        /// The first run: the ZIP's record (its `sha256`, and its tree as `path`) and the style sheet's.
        func runShown() async throws -> (zip: Report.Asset, sheet: Report.Asset) {
            let result = try await prefetch(["run", shown, "--json"])
            #expect(result.status == 0, "\(result.stderr)")
            let assets = try result.report().assets
            return (try #require(assets.first { $0.kind == "archive" }), try #require(assets.first { $0.kind == "file" }))
        }

        func leasePath(_ sha256: String) -> String { "\(cache)/leases/\(sha256.prefix(2))/\(sha256)" }
        func objectPath(_ sha256: String) -> String { "\(cache)/objects/\(sha256.prefix(2))/\(sha256)" }
        func treePath(_ sha256: String) -> String { "\(cache)/trees/\(sha256.prefix(2))/\(sha256)" }

        func exists(_ path: String) -> Bool {
            var info = stat()
            return lstat(path, &info) == 0
        }
    }

    /// The display app's stand-in, from the docs' own example files.
    enum StandIn {
        case python, c

        static let examples = Package.root.appendingPathComponent("docs/examples")

        /// Started on `leases` (lease file, path to show) pairs; returned once it said "leased".
        func start(_ leases: [(lease: String, path: String)], in scratch: Scratch) async throws -> RunningCommand {
            let arguments = leases.flatMap { [$0.lease, $0.path] }
            let child: RunningCommand
            switch self {
            case .python:
                child = try RunningCommand(
                    executable: try SystemTool.location(of: "python3"),
                    [Self.examples.appendingPathComponent("lease.py").path] + arguments, watchingStandardOutput: true)
            case .c:
                let binary = scratch.path("lease")
                try await SystemTool.run("cc", ["-Wall", "-Werror", "-o", binary, Self.examples.appendingPathComponent("lease.c").path])
                child = try RunningCommand(executable: URL(fileURLWithPath: binary), arguments, watchingStandardOutput: true)
            }
            let leased = await child.stdoutContains("leased")
            #expect(leased)
            if !leased {
                let result = await child.wait()
                Issue.record("the stand-in exited \(result.status): \(result.stderr)")
            }
            return child
        }
    }

    /// `gc --json`'s counts, through the documented names.
    struct Collection: Decodable {
        var evicted_refs, removed_objects, removed_trees, kept_leased, kept_leased_bytes: Int
    }

    /// The report's `eviction`, and its scrub's damage.
    struct RunReport: Decodable {
        struct Eviction: Decodable {
            var evicted_refs, removed_objects, removed_trees, kept_leased, kept_leased_bytes: Int
        }
        struct Scrub: Decodable {
            struct Damage: Decodable {
                var kind, path: String
                var removed: Bool
            }
            var damaged: [Damage]
        }
        var version: String
        var eviction: Eviction?
        var scrub: Scrub?
    }

    struct VerifyOutput: Decodable {
        struct Problem: Decodable {
            var kind, path, problem: String
            var removed: Bool
        }
        var problems: [Problem]
    }

    static func contents(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    @Test func aLeasedZipOutlivesGCAtBudgetZeroAndARunThatDropsItUntilItsAppIsKilled() async throws {
        let setup = try await Setup.make()
        let (zip, sheet) = try await setup.runShown()
        let sha = try #require(zip.sha256)
        let tree = try #require(zip.path)
        let object = setup.objectPath(sha)
        let before = (snapshot(tree), Self.contents(object))
        #expect(!before.0.isEmpty && before.1 != nil)

        let app = try await StandIn.python.start([(setup.leasePath(sha), tree)], in: setup.scratch)

        // A run whose manifest no longer has the message, at a budget of 0.
        let run = try await setup.prefetch(["run", setup.later, "--json", "--budget", "0"])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try JSONDecoder().decode(RunReport.self, from: run.stdout)
        #expect(report.version == "1.6.0")
        let eviction = try #require(report.eviction)
        #expect(eviction.kept_leased == 1)
        #expect(eviction.kept_leased_bytes > 0)
        #expect(!setup.exists(setup.objectPath(try #require(sheet.sha256))), "an unleased object of the dropped messages goes")

        let gc = try await setup.prefetch(["gc", "--budget", "0", "--json"])
        #expect(gc.status == 0, "\(gc.stderr)")
        let collection = try JSONDecoder().decode(Collection.self, from: gc.stdout)
        #expect(collection.kept_leased == 1)
        #expect(collection.kept_leased_bytes == eviction.kept_leased_bytes)
        #expect(snapshot(tree) == before.0)
        #expect(Self.contents(object) == before.1)

        app.signal(SIGKILL)
        #expect(await app.wait().status == 128 + SIGKILL)

        // The remembered budget is the run's 0: the next gc takes them.
        let after = try await setup.prefetch(["gc", "--json"])
        #expect(after.status == 0, "\(after.stderr)")
        let swept = try JSONDecoder().decode(Collection.self, from: after.stdout)
        #expect(swept.kept_leased == 0)
        #expect(swept.removed_trees == 1)
        #expect(!setup.exists(tree))
        #expect(!setup.exists(object))
        #expect(!setup.exists(setup.leasePath(sha)), "the lease file goes last, with what it leased")
    }

    /// Issue 28's Done-when, as an integrator meets it: a display app that is
    /// not Swift (docs/examples/display.py) reads only readiness.json, takes
    /// the leases it names and opens the files it names. `gc --budget 0` and a
    /// run whose manifest drops the message leave them byte-identical; once the
    /// app is killed with SIGKILL, the next gc removes them.
    @Test func aDisplayAppThatReadsOnlyTheIndexKeepsWhatItShowsUntilItIsKilled() async throws {
        let setup = try await Setup.make()
        let (zip, _) = try await setup.runShown()
        let sha = try #require(zip.sha256)
        let tree = try #require(zip.path)
        let before = snapshot(tree)
        #expect(before["index.html"] != nil)

        let app = try RunningCommand(
            executable: try SystemTool.location(of: "python3"),
            [StandIn.examples.appendingPathComponent("display.py").path, setup.cache, "bundle"], watchingStandardOutput: true)
        #expect(await app.stdoutContains("\(tree)/index.html"), "it shows the entry the index names")

        // The run first: once its manifest no longer needs the bundle, only
        // the lease keeps it from the run's eviction and from gc.
        let run = try await setup.prefetch(["run", setup.later, "--json", "--budget", "0"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try JSONDecoder().decode(RunReport.self, from: run.stdout).eviction?.kept_leased == 1)
        let gc = try await setup.prefetch(["gc", "--budget", "0", "--json"])
        #expect(gc.status == 0, "\(gc.stderr)")
        #expect(try JSONDecoder().decode(Collection.self, from: gc.stdout).kept_leased == 1)
        #expect(snapshot(tree) == before)

        app.signal(SIGKILL)
        #expect(await app.wait().status == 128 + SIGKILL)
        let after = try await setup.prefetch(["gc", "--json"])
        #expect(after.status == 0, "\(after.stderr)")
        #expect(try JSONDecoder().decode(Collection.self, from: after.stdout).removed_trees == 1)
        #expect(!setup.exists(tree))
        #expect(!setup.exists(setup.objectPath(sha)))

        // A message the index does not call ready is not shown.
        let notReady = try await CommandRunner.run(
            try SystemTool.location(of: "python3"), [StandIn.examples.appendingPathComponent("display.py").path, setup.cache, "bundle"])
        #expect(notReady.status == 1, "\(notReady.stderr)")
    }

    @Test func verifyRepairLeavesALeasedDamagedObjectInPlaceAndSaysSoAndRemovesItOnceReleased() async throws {
        let setup = try await Setup.make()
        let (zip, sheet) = try await setup.runShown()
        let leased = try #require(zip.sha256)
        let unleased = try #require(sheet.sha256)
        // 0444, and the stand-in opens it read-only.
        let mode = try FileManager.default.attributesOfItem(atPath: setup.leasePath(leased))[.posixPermissions] as? Int
        #expect(mode == 0o444)
        #expect(try FileManager.default.attributesOfItem(atPath: setup.leasePath(leased))[.size] as? Int == 0)

        let app = try await StandIn.c.start([(setup.leasePath(leased), setup.objectPath(leased))], in: setup.scratch)
        try ScrubTests.flipByte(setup.objectPath(leased))
        try ScrubTests.flipByte(setup.objectPath(unleased))
        let damaged = Self.contents(setup.objectPath(leased))

        let repair = try await setup.prefetch(["verify", "--repair", "--json"])
        #expect(repair.status == 1)
        let problems = try JSONDecoder().decode(VerifyOutput.self, from: repair.stdout).problems
        let kept = try #require(problems.first { $0.path == setup.objectPath(leased) })
        #expect(kept.kind == "object_corrupt")
        #expect(!kept.removed)
        #expect(problems.first { $0.path == setup.objectPath(unleased) }?.removed == true)
        #expect(Self.contents(setup.objectPath(leased)) == damaged, "left in place, as the app has it open")
        #expect(!setup.exists(setup.objectPath(unleased)))
        let text = try await setup.prefetch(["verify", "--repair"])
        #expect(text.stderr.contains("(kept: a display app leases it; a later --repair removes it once released)"))

        app.signal(SIGKILL)
        _ = await app.wait()
        let again = try await setup.prefetch(["verify", "--repair", "--json"])
        #expect(try JSONDecoder().decode(VerifyOutput.self, from: again.stdout).problems.first { $0.path == setup.objectPath(leased) }?.removed == true)
        #expect(!setup.exists(setup.objectPath(leased)))
        #expect(!setup.exists(setup.treePath(leased)))
    }

    @Test func theScrubLeavesALeasedDamagedTreeForALaterRunToRemove() async throws {
        let setup = try await Setup.make()
        let (zip, _) = try await setup.runShown()
        let sha = try #require(zip.sha256)
        let tree = try #require(zip.path)
        let app = try await StandIn.python.start([(setup.leasePath(sha), tree)], in: setup.scratch)
        try ScrubTests.flipByte("\(tree)/index.html")
        let flipped = Self.contents("\(tree)/index.html")

        let first = try await setup.prefetch(["run", setup.shown, "--json", "--scrub-percent", "100"])
        let damage = try JSONDecoder().decode(RunReport.self, from: first.stdout).scrub?.damaged ?? []
        #expect(damage.map(\.kind) == ["tree_file_corrupt"])
        #expect(damage.first?.removed == false)
        #expect(Self.contents("\(tree)/index.html") == flipped)
        #expect(first.stderr.contains("left in place, since a display app leases it"))

        app.signal(SIGKILL)
        _ = await app.wait()
        let second = try await setup.prefetch(["run", setup.shown, "--json", "--scrub-percent", "100"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(try JSONDecoder().decode(RunReport.self, from: second.stdout).scrub?.damaged.first?.removed == true)
        #expect(Self.contents("\(tree)/index.html") == Data("<html>on screen</html>\n".utf8), "fetched and unpacked again")
    }

    @Test func aLinkAtALeasePathIsNotFollowedAndVerifyReportsAndReplacesIt() async throws {
        let setup = try await Setup.make()
        let (_, sheet) = try await setup.runShown()
        let sha = try #require(sheet.sha256)
        let lease = setup.leasePath(sha)
        let target = try setup.scratch.write("precious.txt", "not the cache's\n")
        try FileManager.default.removeItem(atPath: lease)
        try FileManager.default.createSymbolicLink(atPath: lease, withDestinationPath: target)

        // The example opens with O_NOFOLLOW: no lease through a link.
        let refused = try RunningCommand(
            executable: try SystemTool.location(of: "python3"),
            [StandIn.examples.appendingPathComponent("lease.py").path, lease, try #require(sheet.path)], watchingStandardOutput: true)
        #expect(await refused.wait().status == 3)

        let verify = try await setup.prefetch(["verify", "--json"])
        #expect(verify.status == 1)
        let problem = try #require(try JSONDecoder().decode(VerifyOutput.self, from: verify.stdout).problems.first)
        #expect(problem.kind == "lease_invalid")
        #expect(problem.path == lease)
        #expect(problem.problem.contains("symbolic link"))

        let repair = try await setup.prefetch(["verify", "--repair", "--json"])
        #expect(repair.status == 1)
        #expect(try JSONDecoder().decode(VerifyOutput.self, from: repair.stdout).problems.first?.removed == true)
        let attributes = try FileManager.default.attributesOfItem(atPath: lease)
        #expect(attributes[.type] as? FileAttributeType == .typeRegular)
        #expect(attributes[.posixPermissions] as? Int == 0o444)
        #expect(attributes[.size] as? Int == 0)
        #expect(Self.contents(target) == Data("not the cache's\n".utf8))
        #expect(try await setup.prefetch(["verify"]).status == 0)
    }

    @Test func aCacheWithoutLeaseFilesGainsThemOnItsNextRunAndOrphansGo() async throws {
        let setup = try await Setup.make()
        _ = try await setup.runShown()
        // As an older release left it: no leases/ at all.
        try FileManager.default.removeItem(atPath: "\(setup.cache)/leases")
        let run = try await setup.prefetch(["run", setup.shown, "--offline", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let objects = setup.scratch.listing("cache/objects").filter { $0.count == 67 }
        #expect(objects.count == 2)
        for object in objects {
            #expect(setup.exists("\(setup.cache)/leases/\(object)"), "\(object)")
        }
        let orphan = setup.leasePath(String(repeating: "ab", count: 32))
        try FileManager.default.createDirectory(atPath: "\(setup.cache)/leases/ab", withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: orphan, contents: Data()))
        // gc --budget: this collection's budget, not remembered; what the last manifest needs stays.
        let gc = try await setup.prefetch(["gc", "--budget", "0", "--json"])
        #expect(gc.status == 0, "\(gc.stderr)")
        let collected = try #require(try JSONSerialization.jsonObject(with: gc.stdout) as? [String: Any])
        #expect(collected["budget"] as? Int == 0)
        #expect(collected["needed_exceed_budget"] as? Bool == true)
        #expect(collected["removed_objects"] as? Int == 0)
        #expect(!setup.exists(orphan))
        let status = try JSONSerialization.jsonObject(with: try await setup.prefetch(["status", "--json"]).stdout) as? [String: Any]
        #expect(status?["budget"] as? Int == 1 << 30)
    }

    @Test func theDocsQuoteTheExampleFilesTheseTestsRun() throws {
        let format = try String(contentsOf: Package.root.appendingPathComponent("docs/cache-format.md"), encoding: .utf8)
        for (name, language) in [("lease.c", "c"), ("lease.py", "python")] {
            let example = try String(contentsOf: StandIn.examples.appendingPathComponent(name), encoding: .utf8)
            #expect(format.contains("```\(language)\n\(example)```\n"), "docs/cache-format.md quotes docs/examples/\(name) as it is")
        }
    }
}
