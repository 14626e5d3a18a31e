import Foundation
import Testing

/// `prefetch lease MESSAGE_ID -- COMMAND`: a message's leases, read from the
/// cache's readiness.json (the one the run wrote), held for COMMAND's life.
@Suite struct LeaseCommandTests {
    typealias Setup = LeaseTests.Setup

    /// After the first run: its index names the ZIP's lease for "bundle".
    static func make() async throws -> (Setup, sha256: String, tree: String) {
        let setup = try await Setup.make()
        let (zip, _) = try await setup.runShown()
        let sha = try #require(zip.sha256)
        let index = try String(contentsOfFile: setup.cache + "/readiness.json", encoding: .utf8)
        #expect(index.contains(setup.leasePath(sha)), "the run's index names the lease")
        return (setup, sha, try #require(zip.path))
    }

    /// A display program's stand-in: writes its pid to `pidFile`, says "running", waits for a signal.
    static func display(_ pidFile: String) throws -> [String] {
        [try SystemTool.location(of: "python3").path, "-c",
         "import os, signal, sys; open(sys.argv[1], 'w').write(str(os.getpid())); print('running', flush=True); signal.pause()",
         pidFile]
    }

    static func collect(_ setup: Setup, budget: String) async throws -> LeaseTests.Collection {
        let gc = try await setup.prefetch(["gc", "--budget", budget, "--json"])
        #expect(gc.status == 0, "\(gc.stderr)")
        return try JSONDecoder().decode(LeaseTests.Collection.self, from: gc.stdout)
    }

    @Test func theLeasesLastWhileTheCommandRunsAndSIGTERMIsPassedOnToIt() async throws {
        let (setup, sha, tree) = try await Self.make()
        let before = snapshot(tree)
        // What a display app read before the next run rewrote the index.
        let shownIndex = try Data(contentsOf: URL(fileURLWithPath: setup.cache + "/readiness.json"))
        let lease = try RunningCommand(
            executable: CommandRunner.binDirectory.appendingPathComponent("prefetch"),
            ["lease", "bundle", "--cache-dir", setup.cache, "--"] + Self.display(setup.scratch.path("pid")),
            watchingStandardOutput: true)
        #expect(await lease.stdoutContains("running"))

        let run = try await setup.prefetch(["run", setup.later, "--json", "--budget", "0"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try JSONDecoder().decode(LeaseTests.RunReport.self, from: run.stdout).eviction?.kept_leased == 1)
        #expect(snapshot(tree) == before)
        #expect(setup.exists(setup.objectPath(sha)))

        lease.signal(SIGTERM)
        #expect(await lease.wait().status == 128 + SIGTERM, "the command's end, passed on")
        #expect(try await Self.collect(setup, budget: "0").removed_trees == 1)
        #expect(!setup.exists(tree))

        // An index read before the removal (a display app's race with a
        // writer): it still names the bundle, gone is said, and COMMAND does not run.
        try shownIndex.write(to: URL(fileURLWithPath: setup.cache + "/readiness.json"))
        let gone = try await CommandRunner.prefetch(
            ["lease", "bundle", "--cache-dir", setup.cache, "--", try SystemTool.location(of: "sh").path, "-c", "echo ran"])
        #expect(gone.status == 75)
        #expect(gone.stdout.isEmpty)
        #expect(gone.stderr.contains("an asset of message 'bundle' is no longer in the cache"), "\(gone.stderr)")
    }

    @Test func theCommandKeepsTheLeasesWhenPrefetchAloneIsKilled() async throws {
        let (setup, _, tree) = try await Self.make()
        let pidFile = setup.scratch.path("pid")
        let lease = try RunningCommand(
            executable: CommandRunner.binDirectory.appendingPathComponent("prefetch"),
            ["lease", "bundle", "--cache-dir", setup.cache, "--"] + Self.display(pidFile), watchingStandardOutput: true)
        #expect(await lease.stdoutContains("running"))
        // The last manifest no longer needs the bundle: only the lease keeps it.
        #expect(try await setup.prefetch(["run", setup.later]).status == 0)
        lease.signal(SIGKILL)
        #expect(try await Self.collect(setup, budget: "0").kept_leased == 1)
        #expect(setup.exists(tree))

        let pid = try #require(Int32(try String(contentsOfFile: pidFile, encoding: .utf8)))
        kill(pid, SIGKILL)
        // The display shares prefetch's stdout: its end closes it, and the wait returns.
        _ = await lease.wait()
        #expect(try await Self.collect(setup, budget: "0").removed_trees == 1)
        #expect(!setup.exists(tree))
    }

    @Test func theExitStatusIsTheCommandsAndMistakesAreNamed() async throws {
        let (setup, _, _) = try await Self.make()
        let lease = ["lease", "--cache-dir", setup.cache]
        let sh = try SystemTool.location(of: "sh").path
        #expect(try await CommandRunner.prefetch(lease + ["bundle", "--", sh, "-c", "exit 7"]).status == 7)
        #expect(try await CommandRunner.prefetch(lease + ["html0", "--", sh, "-c", "exit 0"]).status == 0)

        let unknown = try await CommandRunner.prefetch(lease + ["nope", "--", sh, "-c", "exit 0"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("no message 'nope' in \(setup.cache)/readiness.json"), "\(unknown.stderr)")

        let missing = try await CommandRunner.prefetch(lease + ["bundle", "--", "no-such-program-here"])
        #expect(missing.status == 127)
        #expect(missing.stderr.contains("cannot run 'no-such-program-here'"), "\(missing.stderr)")

        let noCommand = try await CommandRunner.prefetch(lease + ["bundle"])
        #expect(noCommand.status == 2)
        #expect(noCommand.stderr.contains("give the command to run after --"), "\(noCommand.stderr)")

        try FileManager.default.removeItem(atPath: setup.cache + "/readiness.json")
        let noIndex = try await CommandRunner.prefetch(lease + ["bundle", "--", sh, "-c", "exit 0"])
        #expect(noIndex.status == 2)
        #expect(noIndex.stderr.contains("no readiness index at \(setup.cache)/readiness.json"), "\(noIndex.stderr)")
    }

    /// --cache-dir, --log-level and --quiet: a lease shard linked elsewhere is
    /// not followed (the asset counts as gone), and the warning follows the level.
    @Test func leaseOptions() async throws {
        let (setup, sha, _) = try await Self.make()
        let shard = "\(setup.cache)/leases/\(sha.prefix(2))"
        try FileManager.default.moveItem(atPath: shard, toPath: setup.scratch.path("moved"))
        try FileManager.default.createSymbolicLink(atPath: shard, withDestinationPath: setup.scratch.path("moved"))
        let command = ["lease", "bundle", "--cache-dir", setup.cache, "--", try SystemTool.location(of: "sh").path, "-c", "exit 0"]
        let warned = try await CommandRunner.prefetch(command)
        #expect(warned.status == 75)
        #expect(warned.stderr.contains("a symbolic link where the cache keeps a directory; it was not followed"), "\(warned.stderr)")
        for quiet in [["--log-level", "error"], ["--quiet"]] {
            let silent = try await CommandRunner.prefetch(Array(command[..<4]) + quiet + Array(command[4...]))
            #expect(silent.status == 75)
            #expect(!silent.stderr.contains("symbolic link"), "\(silent.stderr)")
        }
    }
}
