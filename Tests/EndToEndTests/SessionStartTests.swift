import AssetCache
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue 40, part 5, through the real binary: `prefetch session-start` records
/// a display app's request where prefetch-session.path looks, `--consume` (the
/// service's ExecStartPre) takes the requests present, and requests made while
/// a run goes on leave exactly one request for one follow-up run. Nothing in
/// the directory is trusted: no link is followed, and a directory anyone may
/// write is refused.
@Suite struct SessionStartTests {
    /// A request directory as the package's tmpfiles.d makes it (2770), in a scratch folder.
    struct Requests {
        let scratch: Scratch
        let dir: String

        init(group: gid_t? = nil) throws {
            scratch = try Scratch()
            dir = scratch.path("session-start")
            try #require(mkdir(dir, 0o700) == 0)
            if let group { try #require(chown(dir, 0, group) == 0) }
            try #require(chmod(dir, 0o2770) == 0)
        }

        var listing: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted() }

        func sessionStart(_ extra: [String] = []) async throws -> CommandResult {
            try await CommandRunner.prefetch(["session-start", "--request-dir", dir] + extra)
        }
    }

    /// `prefetch` as nobody (uid and gid 65534) with only `groups` besides: a
    /// display app's user, which only root can become.
    static func prefetchAsNobody(_ arguments: [String], groups: [gid_t]) async throws -> CommandResult {
        let prefetch = CommandRunner.binDirectory.appendingPathComponent("prefetch").path
        let groupFlag = groups.isEmpty ? "--clear-groups" : "--groups=" + groups.map { "\($0)" }.joined(separator: ",")
        return try await CommandRunner.run(
            URL(fileURLWithPath: "/usr/bin/setpriv"), ["--reuid=65534", "--regid=65534", groupFlag, "--", prefetch] + arguments)
    }

    /// A group every Debian system has, standing for the prefetch group.
    static func usersGroup() throws -> gid_t {
        try #require(getgrnam("users")?.pointee.gr_gid, "no group 'users' on this machine")
    }

    @Test func aRequestIsAnEmptyFileInTheDirectoryNamedByFlagOrEnvironment() async throws {
        let requests = try Requests()
        #expect(!SessionStartRequests.pending(in: requests.dir))
        let result = try await requests.sessionStart()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutText == "session start recorded: \(requests.dir)/request\n")
        #expect(result.stderr.isEmpty)
        #expect(requests.listing == ["request"])
        var info = stat()
        #expect(lstat(requests.dir + "/request", &info) == 0 && info.st_mode & S_IFMT == S_IFREG && info.st_size == 0)
        #expect(SessionStartRequests.pending(in: requests.dir))

        // PREFETCH_REQUEST_DIR names it when --request-dir does not; --quiet prints nothing.
        let other = try Requests()
        let quiet = try await CommandRunner.prefetch(
            ["session-start", "--quiet"], environment: [SessionStartRequests.environmentVariable: other.dir])
        #expect(quiet.status == 0 && quiet.stdout.isEmpty && quiet.stderr.isEmpty, "\(quiet.stderr)")
        #expect(other.listing == ["request"])
    }

    /// The service's run takes the request that started it; three more during
    /// that run leave one request, which the path unit's check at the run's end
    /// turns into one follow-up run; after that one, nothing is pending.
    @Test func threeRequestsDuringARunLeaveOneFollowUpRun() async throws {
        let requests = try Requests()
        #expect(try await requests.sessionStart().status == 0)
        let first = try await requests.sessionStart(["--consume"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdoutText == "took 1 session-start request from \(requests.dir)\n")
        #expect(!SessionStartRequests.pending(in: requests.dir))
        #expect(requests.listing.isEmpty)

        var said: [String] = []
        for _ in 0..<3 {
            let result = try await requests.sessionStart()
            #expect(result.status == 0, "\(result.stderr)")
            said.append(result.stdoutText)
        }
        let request = "\(requests.dir)/request"
        #expect(said == ["session start recorded: \(request)\n", "session start already pending: \(request)\n",
                         "session start already pending: \(request)\n"])
        #expect(requests.listing == ["request"])
        #expect(SessionStartRequests.pending(in: requests.dir))

        let followUp = try await requests.sessionStart(["--consume"])
        #expect(followUp.stdoutText == "took 1 session-start request from \(requests.dir)\n")
        #expect(!SessionStartRequests.pending(in: requests.dir))
        let after = try await requests.sessionStart(["--consume"])
        #expect(after.status == 0 && after.stdoutText == "no session-start request in \(requests.dir)\n", "\(after.stderr)")
    }

    @Test func aLinkADirectoryEveryoneMayWriteOrAFileIsRefusedWithNothingWritten() async throws {
        let scratch = try Scratch()
        let real = scratch.path("real")
        try #require(mkdir(real, 0o770) == 0)
        let link = scratch.path("link")
        try #require(symlink(real, link) == 0)
        let open = scratch.path("open")
        try #require(mkdir(open, 0o700) == 0 && chmod(open, 0o1777) == 0)
        // Not sticky and the caller's: closing it harms no one.
        let own = scratch.path("own")
        try #require(mkdir(own, 0o700) == 0 && chmod(own, 0o777) == 0)
        let file = try scratch.write("file", "")
        let refusals = [
            (link, "refusing request directory \(link): it is a symbolic link; name the directory itself (prefetch follows no link there)"),
            // Sticky, as /tmp: shared, so no chmod of it is advised (issue 36).
            (open, "refusing request directory \(open): it is writable by everyone (mode 1777), who could plant or remove requests; "
                + "it is shared, not a request directory's own: use one of its own, as the package's /run/prefetch/session-start"),
            (own, "refusing request directory \(own): it is writable by everyone (mode 777), who could plant or remove requests; "
                + "fix it with: chmod o-w \(own)"),
            (file, "refusing request directory \(file): it is not a directory"),
        ]
        for (dir, error) in refusals {
            for extra in [[], ["--consume"]] {
                let result = try await CommandRunner.prefetch(["session-start", "--request-dir", dir] + extra)
                ErrorMessageTests.expectError(result, status: 2, error)
                #expect(result.stdout.isEmpty)
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: real).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: open).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: own).isEmpty)
        #expect(!SessionStartRequests.pending(in: link), "a link is not the directory")

        // A missing one: nothing to record into (2), nothing to take (0).
        let missing = scratch.path("missing")
        ErrorMessageTests.expectError(
            try await CommandRunner.prefetch(["session-start", "--request-dir", missing]), status: 2,
            "no request directory \(missing): make it as the package's tmpfiles.d does (systemd-tmpfiles --create prefetch.conf), "
                + "or name another with --request-dir")
        let take = try await CommandRunner.prefetch(["session-start", "--request-dir", missing, "--consume"])
        #expect(take.status == 0 && take.stdoutText == "no request directory \(missing): nothing to take\n", "\(take.stderr)")
        #expect(access(missing, F_OK) != 0)
    }

    /// What group members leave is hostile: a link named `request` is neither
    /// followed by a request nor by the run that takes it, and everything
    /// there, hidden and backup names included, is removed.
    @Test func takingFollowsNoLinkAndRemovesWhatMembersLeft() async throws {
        let requests = try Requests()
        let victim = try requests.scratch.write("victim", "keep me")
        try #require(symlink(victim, requests.dir + "/request") == 0)
        try FileManager.default.createDirectory(atPath: requests.dir + "/junk/deeper", withIntermediateDirectories: true)
        _ = try requests.scratch.write("session-start/junk/deeper/file", "x")
        try #require(mkfifo(requests.dir + "/pipe", 0o600) == 0)

        let again = try await requests.sessionStart()
        #expect(again.stdoutText == "session start already pending: \(requests.dir)/request\n", "\(again.stderr)")
        let taken = try await requests.sessionStart(["--consume"])
        #expect(taken.status == 0 && taken.stderr.isEmpty, "\(taken.stderr)")
        #expect(taken.stdoutText == "took 3 session-start requests from \(requests.dir)\n")
        #expect(requests.listing.isEmpty)
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "keep me")

        // Hidden and backup names are no requests, as systemd does not count them; they go too.
        for name in [".hidden", "notes~", "request.bak", "x.dpkg-new"] {
            _ = try requests.scratch.write("session-start/" + name, "")
        }
        #expect(!SessionStartRequests.pending(in: requests.dir))
        let none = try await requests.sessionStart(["--consume"])
        #expect(none.stdoutText == "no session-start request in \(requests.dir)\n", "\(none.stderr)")
        #expect(requests.listing.isEmpty)
    }

    @Test(.enabled(if: geteuid() == 0))
    func aCallerOutsideTheGroupExits77NamingItAndAMemberRecords() async throws {
        let group = try Self.usersGroup()
        let requests = try Requests(group: group)
        let hint = "join the group 'users', which may write to \(requests.dir): SupplementaryGroups=users in the app's unit, "
            + "or usermod -aG users nobody and log in again"
        let outsider = try await Self.prefetchAsNobody(["session-start", "--request-dir", requests.dir], groups: [])
        ErrorMessageTests.expectError(
            outsider, status: 77,
            "no permission to record a session start in \(requests.dir): open \(requests.dir): Permission denied", hint: hint)
        let outsiderTakes = try await Self.prefetchAsNobody(["session-start", "--request-dir", requests.dir, "--consume"], groups: [])
        #expect(outsiderTakes.status == 77 && outsiderTakes.stderr.hasSuffix("prefetch: hint: \(hint)\n"), "\(outsiderTakes.stderr)")
        #expect(requests.listing.isEmpty)

        let member = try await Self.prefetchAsNobody(["session-start", "--request-dir", requests.dir], groups: [group])
        #expect(member.status == 0, "\(member.stderr)")
        #expect(member.stdoutText == "session start recorded: \(requests.dir)/request\n")
        var info = stat()
        #expect(lstat(requests.dir + "/request", &info) == 0 && info.st_uid == 65534 && info.st_gid == group, "the setgid bit gives the group")
    }

    /// A member may leave what the service cannot remove (a directory only its
    /// maker can read). Taking hides it at once — a rename needs only the
    /// request directory's write permission — so it starts no more runs, and
    /// each run says what is left.
    @Test(.enabled(if: geteuid() == 0))
    func whatTheServiceCannotRemoveStopsCountingAndIsNamed() async throws {
        let group = try Self.usersGroup()
        let requests = try Requests(group: group)
        let stuck = requests.dir + "/stuck"
        try #require(mkdir(stuck, 0o700) == 0)
        _ = try requests.scratch.write("session-start/stuck/file", "x")
        #expect(SessionStartRequests.pending(in: requests.dir))

        let taken = try await Self.prefetchAsNobody(["session-start", "--request-dir", requests.dir, "--consume"], groups: [group])
        #expect(taken.status == 0, "\(taken.stderr)")
        #expect(taken.stdoutText == "took 1 session-start request from \(requests.dir)\n")
        let hidden = try #require(requests.listing.first)
        #expect(requests.listing.count == 1 && hidden.hasPrefix(".taken-"), "\(requests.listing)")
        #expect(taken.stderr == "prefetch: warning: open \(requests.dir)/\(hidden): Permission denied; what a member of the group left "
            + "there no longer counts as a request, but only its owner or root can remove it\n")
        #expect(!SessionStartRequests.pending(in: requests.dir))

        // The next run takes nothing and says it again; root (here) removes it.
        let next = try await Self.prefetchAsNobody(["session-start", "--request-dir", requests.dir, "--consume"], groups: [group])
        #expect(next.stdoutText == "no session-start request in \(requests.dir)\n" && next.stderr.contains(hidden), "\(next.stderr)")
        let root = try await requests.sessionStart(["--consume"])
        #expect(root.status == 0 && root.stderr.isEmpty && requests.listing.isEmpty, "\(root.stderr)")
    }
}
