import FixtureServer
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue 40: `readiness.json` follows the run, and `prefetch ready --wait`
/// tells a display app within a moment, not at the run's end.
@Suite struct LiveReadinessTests {
    struct Setup {
        let scratch: Scratch
        let server: FixtureServer
        var cache: String { scratch.path("cache") }
        var indexPath: String { "\(cache)/readiness.json" }

        static func make() async throws -> Setup {
            let scratch = try Scratch()
            let www = scratch.path("www")
            try FileManager.default.createDirectory(atPath: "\(www)/img", withIntermediateDirectories: true)
            for name in ["img/rgb.png", "img/gray.png"] {
                try FileManager.default.copyItem(atPath: Package.assets.appendingPathComponent(name).path, toPath: "\(www)/\(name)")
            }
            return Setup(scratch: scratch, server: try await FixtureServer.start(root: www))
        }

        /// `welcome` at session start with a quick image; `later` on a custom
        /// event, its image behind `query` (a slow server, a missing file).
        func manifest(_ name: String, later: String) throws -> String {
            try scratch.write(name, try manifestJSON([
                inapp("welcome", ["type": "SLIDEUP", "image_url": server.url("img/rgb.png?cache_control=max-age%3D0")]),
                [
                    "id": "later", "type": "inapp", "trigger_condition": [["type": "custom_event", "data": ["event_name": "x"]]],
                    "data": ["type": "SLIDEUP", "image_url": server.url(later)],
                ] as [String: Any],
            ]))
        }

        func prefetch(_ arguments: [String]) async throws -> CommandResult {
            try await CommandRunner.prefetch(arguments + ["--cache-dir", cache])
        }

        /// No stall timeout and no --max-time: a slow image fails only when the test stops the run.
        func run(_ manifest: String) throws -> RunningCommand {
            try RunningCommand([
                "run", manifest, "--cache-dir", cache, "--retries", "0", "--stall-timeout", "0", "--max-time", "0", "--log-level", "debug",
            ])
        }

        /// The index's inode and modification time.
        func indexIdentity() throws -> (inode: UInt64, mtime: Date) {
            let attributes = try FileManager.default.attributesOfItem(atPath: indexPath)
            return ((attributes[.systemFileNumber] as? NSNumber)?.uint64Value ?? 0, attributes[.modificationDate] as? Date ?? .distantPast)
        }
    }

    /// A message's status and reason in the index as `prefetch ready` prints them.
    static func line(_ result: CommandResult) -> [String] {
        result.stdoutText.split(separator: "\n").first.map { $0.split(separator: "\t").map(String.init) } ?? []
    }

    @Test func readyWaitReturnsMidRunAndAStoppedRunLeavesUndecidedMessagesUndecided() async throws {
        let setup = try await Setup.make()
        // The slow image takes an hour: the run is stopped long before, however
        // slowly a loaded machine runs this test (a minute was once not enough).
        let manifest = try setup.manifest("m.json", later: "img/gray.png?delay_ms=3600000")
        let run = try setup.run(manifest)
        // Started with the run, before there is a cache at all.
        let waited = try await setup.prefetch(["ready", "welcome", "--wait", "60"])
        #expect(waited.status == 0, "\(waited.stderr)")
        #expect(run.isRunning, "the run ended before the wait returned")
        #expect(Self.line(waited).prefix(2) == ["welcome", "ready"])
        // Mid-run, the other message is new and undecided.
        let pending = try await setup.prefetch(["ready", "later"])
        #expect(pending.status == 1)
        #expect(Self.line(pending) == ["later", "deferred", "pending"])
        #expect(FileManager.default.fileExists(atPath: "\(setup.cache)/running.json"))

        run.signal(SIGTERM)
        let stopped = await run.wait()
        #expect(stopped.status == 143, "\(stopped.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(setup.cache)/running.json"))
        // The stop's own failure decided nothing: not discarded, deferred for the next run.
        let after = try await setup.prefetch(["ready", "welcome", "later"])
        #expect(after.stdoutText.contains("welcome\tready\t"))
        #expect(after.stdoutText.contains("later\tdeferred\trun_stopped"), "\(after.stdoutText)")
        // No run in progress and not ready: a wait answers at once.
        let decided = try await setup.prefetch(["ready", "later", "--wait", "60"])
        #expect(decided.status == 1, "\(decided.stderr)")
        try await setup.server.stop()
    }

    @Test func readyWaitSaysOnceAFinishedRunDiscardedTheMessage() async throws {
        let setup = try await Setup.make()
        let manifest = try setup.manifest("m.json", later: "img/missing.png?delay_ms=300")
        let run = try setup.run(manifest)
        let waited = try await setup.prefetch(["ready", "later", "--wait", "60"])
        let ran = await run.wait()
        #expect(ran.status == 1, "\(ran.stderr)")
        #expect(waited.status == 1, "\(waited.stderr)")
        #expect(Self.line(waited).prefix(3) == ["later", "discarded", "asset_download_failed"])
        try await setup.server.stop()
    }

    @Test func readyWaitTimesOutWithItsDocumentedCode() async throws {
        let setup = try await Setup.make()
        try await setup.server.stop()
        // No cache yet and no run: waited for, then 75 naming what it waited for.
        let waited = try await setup.prefetch(["ready", "welcome", "--wait", "0.3"])
        #expect(waited.status == 75)
        #expect(waited.stderr.contains("prefetch: error: waited 0.3 s: 'welcome' (not in the index yet) is not ready"), "\(waited.stderr)")
        #expect(waited.stderr.contains("prefetch: hint: no run is in progress"), "\(waited.stderr)")
        let missing = try await setup.prefetch(["ready", "--wait", "1"])
        #expect(missing.status == 2)
    }

    @Test func aMessageReadyBeforeStaysReadyThroughARunThatRevalidatesIt() async throws {
        let setup = try await Setup.make()
        // The slow image's first request is answered at once, every later one after an hour.
        let manifest = try setup.manifest("m.json", later: "img/gray.png?delay_ms=3600000&delay_after=1&cache_control=max-age%3D0")
        let first = try await setup.prefetch(["run", manifest, "--retries", "0"])
        #expect(first.status == 0, "\(first.stderr)")
        let before = try setup.indexIdentity()
        let watch = try DirectoryWatch(setup.cache)
        defer { watch.stop() }
        // Both images are stale: the second run revalidates them, the slow one for an hour.
        let run = try setup.run(manifest)
        #expect(await watch.created(prefix: "running.json") != nil)
        let during = try await setup.prefetch(["ready", "welcome", "later"])
        #expect(during.status == 0, "\(during.stdoutText)")
        // The quick one revalidated with a 304, decided: the same verdict, so no rewrite.
        #expect(await run.stderrContains("img/rgb.png?cache_control=max-age%3D0: revalidated"))
        #expect(run.isRunning)
        let meanwhile = try await setup.prefetch(["ready", "welcome", "later"])
        #expect(meanwhile.status == 0, "\(meanwhile.stdoutText)")
        run.signal(SIGTERM)
        #expect(await run.wait().status == 143)
        let after = try setup.indexIdentity()
        #expect(after.inode == before.inode && after.mtime == before.mtime, "readiness.json was rewritten: no verdict changed")
        let quick = setup.server.requests().filter { $0.path.hasSuffix("rgb.png") }
        #expect(quick.map(\.status) == [200, 304], "\(quick)")
        try await setup.server.stop()
    }

    /// The last row of docs/cache-format.md's "What keeps an object": a
    /// stopped run's own eviction keeps the object its index still names for a
    /// message it did not decide, though no ref of its manifest names it any
    /// more — the object, not the ref. `gc` never sees this root, so
    /// CacheRootsTests cannot check it.
    @Test func aStoppedRunsOwnEvictionKeepsWhatItsIndexStillNames() async throws {
        let setup = try await Setup.make()
        let first = try setup.manifest("first.json", later: "img/gray.png")
        #expect(try await setup.prefetch(["run", first]).status == 0)
        let shown = try await setup.prefetch(["ready", "later"])
        let path = try #require(Self.line(shown).dropFirst(2).first, "\(shown.stdoutText)")
        // `later` moves to a URL that answers in an hour: the old URL is in no
        // manifest now, and --budget 0 evicts every ref no root keeps.
        let second = try setup.manifest("second.json", later: "img/gray.png?delay_ms=3600000")
        let run = try RunningCommand([
            "run", second, "--cache-dir", setup.cache, "--retries", "0", "--stall-timeout", "0", "--max-time", "0",
            "--budget", "0", "--log-level", "debug",
        ])
        #expect(await run.stderrContains("img/rgb.png?cache_control=max-age%3D0: revalidated"))
        run.signal(SIGTERM)
        #expect(await run.wait().status == 143)

        let after = try await setup.prefetch(["ready", "later"])
        #expect(after.status == 0 && Self.line(after) == ["later", "ready", path], "\(after.stdoutText)")
        #expect(FileManager.default.fileExists(atPath: path))
        let listing = try await setup.prefetch(["ls", "--json"]).jsonObject()
        let objects = try #require(listing["objects"] as? [[String: Any]])
        let kept = try #require(objects.first { path.hasSuffix("/\($0["sha256"] as? String ?? "-")") }, "\(objects)")
        #expect((kept["urls"] as? [String])?.isEmpty == true, "\(kept)")
        try await setup.server.stop()
    }

    @Test func aWarmRunThatChangesNoVerdictLeavesTheIndexUntouched() async throws {
        let setup = try await Setup.make()
        let manifest = try setup.manifest("m.json", later: "img/gray.png?cache_control=max-age%3D0")
        #expect(try await setup.prefetch(["run", manifest]).status == 0)
        let before = try setup.indexIdentity()
        let warm = try await setup.prefetch(["run", manifest, "--json"])
        #expect(warm.status == 0, "\(warm.stderr)")
        #expect(try warm.report().assets.map(\.outcome) == ["revalidated", "revalidated"])
        let after = try setup.indexIdentity()
        #expect(after.inode == before.inode && after.mtime == before.mtime)
        try await setup.server.stop()
    }

    /// A session start's request counts as a run about to start: pending, and
    /// taken by the service before its run says it runs. The last run left
    /// `later` discarded; the run the request asked for makes it ready.
    @Test(arguments: [false, true])
    func readyWaitCountsASessionStartAsARunAboutToStart(takenFirst: Bool) async throws {
        let setup = try await Setup.make()
        let requests = setup.scratch.path("requests")
        try FileManager.default.createDirectory(atPath: requests, withIntermediateDirectories: true)
        let broken = try setup.manifest("broken.json", later: "img/missing.png")
        #expect(try await setup.prefetch(["run", broken, "--retries", "0"]).status == 1)
        let fixed = try setup.manifest("fixed.json", later: "img/gray.png")

        #expect(try await CommandRunner.prefetch(["session-start", "--request-dir", requests]).status == 0)
        if takenFirst {
            #expect(try await CommandRunner.prefetch(["session-start", "--consume", "--request-dir", requests]).status == 0)
        }
        let wait = try RunningCommand([
            "ready", "later", "--wait", "60", "--request-dir", requests, "--cache-dir", setup.cache, "--log-level", "debug",
        ])
        // It has looked once and found no answer: the old verdict is not final.
        #expect(await wait.stderrContains("not ready yet: waiting up to 60 s for later"))
        if !takenFirst {
            #expect(try await CommandRunner.prefetch(["session-start", "--consume", "--request-dir", requests]).status == 0)
        }
        let ran = try await setup.prefetch(["run", fixed, "--retries", "0"])
        #expect(ran.status == 0, "\(ran.stderr)")
        let waited = await wait.wait()
        #expect(waited.status == 0, "\(waited.stderr)")
        #expect(Self.line(waited).prefix(2) == ["later", "ready"])
        try await setup.server.stop()
    }
}
