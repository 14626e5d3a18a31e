import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue 40, point 4: readers cannot hold writers hostage. flock(2) needs no
/// write access, so whoever can open `<cache>/lock` can lock every writer
/// out, and whoever can open a lease file can take it exclusively. The lock is
/// therefore the writer's own (0600, checked and repaired on every open), and
/// every wait for a lease file has a bound: `prefetch lease --wait`, and
/// `LEASE_WAIT` in the docs' examples (docs/cache-format.md#what-a-reader-can-do-to-a-writer).
@Suite struct ReaderHostageTests {
    typealias Setup = LeaseTests.Setup

    /// A reader at its worst: opens each path read-only (never through a
    /// link), takes `LOCK_EX | LOCK_NB` on it and keeps what it got, says
    /// "held PATH" or "refused PATH: why" for each, then "done", and waits to
    /// be killed. As `nobody` (uid and gid 65534, no other groups) when
    /// `asNobody`, which only root can become.
    static func reader(_ paths: [String], asNobody: Bool) throws -> RunningCommand {
        let script = """
            import fcntl, os, signal, sys
            kept = []
            for path in sys.argv[1:]:
                try:
                    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    kept.append(fd)
                    print("held", path)
                except OSError as error:
                    print(f"refused {path}: {error.strerror}")
            print("done", flush=True)
            signal.pause()
            """
        // The system's python: nobody cannot reach a python installed under /root.
        let python = asNobody ? "/usr/bin/python3" : try SystemTool.location(of: "python3").path
        let command = [python, "-c", script] + paths
        if asNobody {
            return try RunningCommand(
                executable: URL(fileURLWithPath: "/usr/bin/setpriv"),
                ["--reuid=65534", "--regid=65534", "--clear-groups", "--"] + command, watchingStandardOutput: true)
        }
        return try RunningCommand(executable: URL(fileURLWithPath: command[0]), Array(command.dropFirst()), watchingStandardOutput: true)
    }

    static func status(_ path: String) -> stat? {
        var info = stat()
        return lstat(path, &info) == 0 ? info : nil
    }

    static func mode(_ path: String) -> mode_t? { status(path).map { $0.st_mode & 0o7777 } }

    // MARK: - The writers' lock

    /// A display app of another user, in the cache's group, tries everything
    /// it can lock: the writers' lock is closed to it, and what it does hold
    /// (the root directory, a lease file, the index) stops no writer.
    @Test(.enabled(if: geteuid() == 0))
    func aReaderOfAnotherUserCannotMakeAWriterExit75() async throws {
        let setup = try await Setup.make()
        let (zip, _) = try await setup.runShown()
        let sha = try #require(zip.sha256)
        let lock = setup.cache + "/lock"
        let index = setup.cache + "/readiness.json"
        #expect(Self.mode(lock) == 0o600)
        #expect(Self.status(lock)?.st_uid == 0)
        // The cache's group is the reader's: it may read the index (0640) too.
        for path in [setup.cache, lock, index] { #expect(chown(path, 0, 65534) == 0) }

        let reader = try Self.reader([lock, setup.cache, setup.leasePath(sha), index], asNobody: true)
        #expect(await reader.stdoutContains("done"))
        #expect(await reader.stdoutContains("refused \(lock): Permission denied"))
        #expect(await reader.stdoutContains("held \(setup.cache)\n"))
        #expect(await reader.stdoutContains("held \(setup.leasePath(sha))\n"))

        // Meanwhile: every writer runs. The lease file held exclusively reads
        // as a lease: the bundle is kept, and nothing waits for it.
        let run = try await setup.prefetch(["run", setup.later, "--json", "--budget", "0"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try JSONDecoder().decode(LeaseTests.RunReport.self, from: run.stdout).eviction?.kept_leased == 1)
        let gc = try await setup.prefetch(["gc"])
        #expect(gc.status == 0, "\(gc.stderr)")
        let repair = try await setup.prefetch(["verify", "--repair"])
        #expect(repair.status == 0, "\(repair.stderr)")
        reader.signal(SIGKILL)
        #expect(await reader.wait().status == 128 + SIGKILL)
    }

    /// What the mode cannot undo, as the docs say: a descriptor opened while
    /// the lock was 0644 keeps its hold after the repair, until it is closed;
    /// a reader that comes after the repair cannot open the lock.
    @Test(.enabled(if: geteuid() == 0))
    func aLockOf0644IsRepairedButADescriptorOpenedBeforeKeepsItsHold() async throws {
        let setup = try await Setup.make()
        _ = try await setup.runShown()
        let lock = setup.cache + "/lock"
        #expect(chmod(lock, 0o644) == 0)
        let early = try Self.reader([lock], asNobody: true)
        #expect(await early.stdoutContains("held \(lock)\n"))

        let locked = try await setup.prefetch(["run", setup.shown])
        #expect(locked.status == 75, "\(locked.stderr)")
        #expect(Self.mode(lock) == 0o600, "repaired before the lock was tried")

        early.signal(SIGKILL)
        _ = await early.wait()
        let late = try Self.reader([lock], asNobody: true)
        #expect(await late.stdoutContains("refused \(lock): Permission denied"))
        let run = try await setup.prefetch(["run", setup.shown])
        #expect(run.status == 0, "\(run.stderr)")
        late.signal(SIGKILL)
        _ = await late.wait()
    }

    /// Every cache an older release made has a lock of mode 0644: the next
    /// writer makes that very file 0600 (the same inode: another writer of
    /// the older release may hold it), and says so at `info`.
    @Test func aLockOf0644IsMade0600InPlaceByTheNextWriter() async throws {
        let setup = try await Setup.make()
        _ = try await setup.runShown()
        let lock = setup.cache + "/lock"
        #expect(chmod(lock, 0o644) == 0)
        let inode = Self.status(lock)?.st_ino
        let gc = try await setup.prefetch(["gc", "--log-level", "info"])
        #expect(gc.status == 0, "\(gc.stderr)")
        #expect(gc.stderr.contains("prefetch: info: \(lock) was mode 0644, which lets readers lock writers out; it is now 0600\n"), "\(gc.stderr)")
        #expect(Self.mode(lock) == 0o600)
        #expect(Self.status(lock)?.st_ino == inode)
        // A new cache's lock is 0600 from the start, whatever the umask.
        let fresh = setup.scratch.path("fresh")
        #expect(try await CommandRunner.prefetch(["run", setup.shown, "--cache-dir", fresh]).status == 0)
        #expect(Self.mode(fresh + "/lock") == 0o600)
    }

    /// A lock of another user is refused by every writer, never opened for
    /// its lock nor changed; readers go on; the fix the error gives works.
    @Test(.enabled(if: geteuid() == 0))
    func aLockOfAnotherUserIsRefusedWithTheFix() async throws {
        let setup = try await Setup.make()
        _ = try await setup.runShown()
        let lock = setup.cache + "/lock"
        #expect(chown(lock, 65534, 65534) == 0)
        #expect(chmod(lock, 0o644) == 0)
        let before = snapshot(setup.cache)
        for command in [["run", setup.shown], ["gc"], ["verify", "--repair"]] {
            let result = try await setup.prefetch(command)
            ErrorMessageTests.expectError(
                result, status: 2,
                "refusing cache directory \(setup.cache): \(lock) belongs to uid 65534, not to you (uid 0), and whoever can open it "
                    + "can lock every writer out; remove it (rm \(lock)) and the next writer makes it again, yours and mode 0600")
        }
        #expect(snapshot(setup.cache) == before)
        #expect(Self.status(lock)?.st_uid == 65534)
        #expect(Self.mode(lock) == 0o644)
        #expect(try await setup.prefetch(["status"]).status == 0, "a reader never opens the lock")

        #expect(unlink(lock) == 0)
        #expect(try await setup.prefetch(["gc"]).status == 0)
        #expect(Self.status(lock)?.st_uid == 0)
        #expect(Self.mode(lock) == 0o600)
    }

    /// A link, a FIFO or a directory where the lock belongs is refused, not
    /// followed, not waited on; what a link points to is left as it was.
    @Test func aLockThatIsNotARegularFileIsRefusedAndNeverFollowed() async throws {
        let setup = try await Setup.make()
        _ = try await setup.runShown()
        let lock = setup.cache + "/lock"
        let victim = try setup.scratch.write("victim", "not the cache's\n")
        #expect(chmod(victim, 0o644) == 0)
        #expect(unlink(lock) == 0)
        let plants: [(kind: String, plant: () -> Int32, remove: String)] = [
            ("symbolic link", { symlink(victim, lock) }, "rm"),
            ("special file", { mkfifo(lock, 0o600) }, "rm"),
            ("directory", { mkdir(lock, 0o700) }, "rm -r"),
        ]
        for (kind, plant, remove) in plants {
            #expect(plant() == 0)
            let result = try await setup.prefetch(["gc"])
            ErrorMessageTests.expectError(
                result, status: 2,
                "refusing cache directory \(setup.cache): \(lock) is a \(kind), not the writers' lock file, and the cache never "
                    + "follows or uses one; remove it (\(remove) \(lock)) and the next writer makes the lock file again")
            #expect(kind == "directory" ? rmdir(lock) == 0 : unlink(lock) == 0)
        }
        #expect(FileManager.default.contents(atPath: victim) == Data("not the cache's\n".utf8))
        #expect(Self.mode(victim) == 0o644)
    }

    // MARK: - Lease files

    /// A reader holding a lease file exclusively: `prefetch lease` gives up
    /// after `--wait` with 75, naming the file, and COMMAND never runs; so do
    /// the docs' examples, with their 4. A hold that ends during the wait lets
    /// the lease be taken.
    @Test func aLeaseFileHeldExclusivelyEndsTheWaitOfLeaseAndTheExamples() async throws {
        let (setup, sha, tree) = try await LeaseCommandTests.make()
        let lease = setup.leasePath(sha)
        let holder = try Self.reader([lease], asNobody: geteuid() == 0)
        #expect(await holder.stdoutContains("held \(lease)\n"))

        let sh = try SystemTool.location(of: "sh").path
        func leaseBundle(wait: String) async throws -> CommandResult {
            try await CommandRunner.prefetch(["lease", "bundle", "--cache-dir", setup.cache, "--wait", wait, "--", sh, "-c", "echo ran"])
        }
        let refused = try await leaseBundle(wait: "1")
        ErrorMessageTests.expectError(
            refused, status: 75,
            "cannot lease message 'bundle': another process holds \(lease) exclusively; waited 1 s for it (--wait), COMMAND was not run",
            hint: "a writer holds a lease file only while it removes that asset: try again, or pass --wait SECONDS; "
                + "a hold that lasts is another program's (lslocks shows it)")
        #expect(refused.stdout.isEmpty, "COMMAND did not run")
        let noWait = try await leaseBundle(wait: "0")
        #expect(noWait.status == 75 && noWait.stdout.isEmpty, "\(noWait.stderr)")
        // Without --wait, 10 s: what the help says, and not waited out here.
        #expect(try await CommandRunner.prefetch(["help", "lease"]).stdoutText.contains("COMMAND. (default: 10)"))

        let binary = setup.scratch.path("lease")
        try await SystemTool.run("cc", ["-Wall", "-Werror", "-o", binary, LeaseTests.StandIn.examples.appendingPathComponent("lease.c").path])
        let examples = [
            (URL(fileURLWithPath: binary), [lease, tree]),
            (try SystemTool.location(of: "python3"), [LeaseTests.StandIn.examples.appendingPathComponent("lease.py").path, lease, tree]),
        ]
        for (executable, arguments) in examples {
            let result = try await CommandRunner.run(executable, arguments, environment: ["LEASE_WAIT": "1"])
            #expect(result.status == 4, "\(executable.lastPathComponent): \(result.stderr)")
            #expect(result.stderr == "lease \(lease): held exclusively by another process for 1 s; try again later\n")
            #expect(result.stdout.isEmpty, "nothing leased")
        }

        let waiting = try RunningCommand(
            executable: CommandRunner.binDirectory.appendingPathComponent("prefetch"),
            ["lease", "bundle", "--cache-dir", setup.cache, "--wait", "600", "--log-level", "info", "--", sh, "-c", "echo ran"])
        #expect(await waiting.stderrContains("\(lease) is held exclusively by another process; waiting for it"))
        holder.signal(SIGKILL)
        _ = await holder.wait()
        let leased = await waiting.wait()
        #expect(leased.status == 0, "\(leased.stderr)")
        #expect(leased.stdoutText == "ran\n")
    }
}
