import FixtureServer
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue 28, point 4, through the real binary: every mistake gets one format,
/// `prefetch: error: …` and at most one `prefetch: hint: …` line, and the exit
/// code that says what kind of mistake it is: 2 for usage (the argument
/// parser's included, and a mistyped command), 77 for a cache the caller may
/// not use, naming its owner.
@Suite struct ErrorMessageTests {
    /// The whole of stderr: the error line and, when given, the hint line.
    static func expectError(
        _ result: CommandResult, status: Int32, _ error: String, hint: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(result.status == status, "\(result.stderr)", sourceLocation: sourceLocation)
        let expected = "prefetch: error: \(error)\n" + (hint.map { "prefetch: hint: \($0)\n" } ?? "")
        #expect(result.stderr == expected, sourceLocation: sourceLocation)
    }

    /// The line shape alone, for messages whose wording is tested elsewhere.
    static func expectShape(_ result: CommandResult, sourceLocation: SourceLocation = #_sourceLocation) {
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(result.stderr.hasSuffix("\n") && (1...2).contains(lines.count), "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(lines.first?.hasPrefix("prefetch: error: ") == true, "\(result.stderr)", sourceLocation: sourceLocation)
        if lines.count == 2 { #expect(lines.last!.hasPrefix("prefetch: hint: "), "\(result.stderr)", sourceLocation: sourceLocation) }
    }

    // MARK: - Permission problems: 77, naming the owner

    /// `prefetch` as nobody (uid and gid 65534, no other groups), which only root can become.
    static func prefetchAsNobody(_ arguments: [String]) async throws -> CommandResult {
        let prefetch = CommandRunner.binDirectory.appendingPathComponent("prefetch").path
        return try await CommandRunner.run(
            URL(fileURLWithPath: "/usr/bin/setpriv"), ["--reuid=65534", "--regid=65534", "--clear-groups", "--", prefetch] + arguments)
    }

    /// A cache made by a run as root, then closed to everyone else (0700).
    static func rootOnlyCache() async throws -> (Scratch, manifest: String, cache: String) {
        let scratch = try Scratch()
        let server = try await FixtureServer.start(root: Package.assets.path)
        let manifest = try scratch.write("m.json", try manifestJSON([inapp("image", ["type": "MODAL", "image_url": server.url("img/rgb.png")])]))
        let cache = scratch.path("cache")
        let run = try await CommandRunner.prefetch(["run", manifest, "--cache-dir", cache])
        try await server.stop()
        #expect(run.status == 0, "\(run.stderr)")
        #expect(chmod(cache, 0o700) == 0)
        return (scratch, manifest, cache)
    }

    @Test(.enabled(if: geteuid() == 0))
    func readersAndWritersOfAnotherUsersCacheExit77NamingTheOwner() async throws {
        let (scratch, manifest, cache) = try await Self.rootOnlyCache()
        let before = snapshot(cache)
        let hint = "the cache \(cache) belongs to user 'root'; run as that user (sudo prefetch …) or pass --cache-dir"
        for command in [["status"], ["plan", manifest], ["verify"], ["run", manifest], ["run", manifest, "--offline"], ["gc"], ["verify", "--repair"]] {
            let result = try await Self.prefetchAsNobody(command + ["--cache-dir", cache])
            #expect(result.status == 77, "\(command): \(result.stderr)")
            Self.expectShape(result)
            #expect(result.stderr.hasPrefix("prefetch: error: no permission to use the cache \(cache): "), "\(command): \(result.stderr)")
            #expect(result.stderr.hasSuffix("prefetch: hint: \(hint)\n"), "\(command): \(result.stderr)")
            #expect(!result.stderr.contains("disk space"), "\(command): \(result.stderr)")
        }
        #expect(snapshot(cache) == before)

        // Open to all but its private refs/ (0750): a reader as another user
        // exited 74 with "free some disk space" before issue 28.
        #expect(chmod(cache, 0o755) == 0)
        for command in [["status"], ["run", manifest]] {
            let result = try await Self.prefetchAsNobody(command + ["--cache-dir", cache])
            #expect(result.status == 77, "\(command): \(result.stderr)")
            Self.expectShape(result)
            #expect(result.stderr.hasSuffix("prefetch: hint: \(hint)\n"), "\(command): \(result.stderr)")
        }
        #expect(snapshot(cache) == before)
        _ = scratch
    }

    /// A run that would make its cache where the caller may not: the directory
    /// that keeps it out is named, with its owner.
    @Test(.enabled(if: geteuid() == 0))
    func aCacheThatCannotBeMadeNamesTheDirectoryThatHoldsIt() async throws {
        let scratch = try Scratch()
        let manifest = try scratch.write("m.json", try manifestJSON([]))
        let parent = scratch.path("closed")
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: false)
        let cache = parent + "/cache"
        let result = try await Self.prefetchAsNobody(["run", manifest, "--cache-dir", cache])
        #expect(result.status == 77, "\(result.stderr)")
        Self.expectShape(result)
        #expect(result.stderr.hasSuffix(
            "prefetch: hint: \(parent), which holds the cache \(cache), belongs to user 'root'; run as that user (sudo prefetch …) or pass --cache-dir\n"),
            "\(result.stderr)")
        #expect(access(cache, F_OK) != 0)
    }

    /// Root may write anywhere, but a writer keeps to caches of its own: the
    /// service user's cache is the service user's to change.
    @Test(.enabled(if: geteuid() == 0))
    func aWriterOnTheServiceUsersCacheIsToldToRunAsThatUser() async throws {
        let (scratch, manifest, cache) = try await Self.rootOnlyCache()
        #expect(chmod(cache, 0o755) == 0)
        #expect(chown(cache, 65534, 65534) == 0)
        let before = snapshot(cache)
        for command in [["gc"], ["run", manifest]] {
            let result = try await CommandRunner.prefetch(command + ["--cache-dir", cache])
            Self.expectError(
                result, status: 77,
                "no permission to use the cache \(cache): it belongs to uid 65534, not to you (uid 0) or root, and a writer changes only a cache of its own",
                hint: "the cache \(cache) belongs to user 'nobody'; run as that user (sudo -u nobody prefetch …) or pass --cache-dir")
        }
        #expect(snapshot(cache) == before)
        _ = scratch
    }

    // MARK: - Mistyped commands: 2, with the nearest command

    static let commandsHint = "see 'prefetch --help' for the commands"

    @Test func aMistypedCommandAndHelpForItSuggestTheNearest() async throws {
        let scratch = try Scratch()
        for arguments in [["stauts"], ["help", "stauts"], ["STATUS"], ["pln", "m.json"]] {
            let result = try await CommandRunner.prefetch(arguments, in: scratch.url)
            let typed = arguments[0] == "help" ? arguments[1] : arguments[0]
            let meant = typed == "pln" ? "plan" : "status"
            Self.expectError(result, status: 2, "unknown command '\(typed)'; did you mean '\(meant)'?", hint: Self.commandsHint)
        }
        Self.expectError(try await CommandRunner.prefetch(["help", "zzzz"]), status: 2, "unknown command 'zzzz'", hint: Self.commandsHint)
        // A known one still gets its help, exit 0.
        let known = try await CommandRunner.prefetch(["help", "status"])
        #expect(known.status == 0 && known.stdoutText.contains("USAGE: prefetch status"), "\(known.stderr)")
    }

    /// `prefetch MANIFEST` is `prefetch run MANIFEST`: a word that names a
    /// file, or is like no command, is read as a manifest.
    @Test func aWordThatIsAFileOrLikeNoCommandIsAManifest() async throws {
        let scratch = try Scratch()
        _ = try scratch.write("stauts", try manifestJSON([]))
        let file = try await CommandRunner.prefetch(["stauts", "--cache-dir", scratch.path("cache"), "--quiet"], in: scratch.url)
        #expect(file.status == 0, "\(file.stderr)")
        let word = try await CommandRunner.prefetch(["zzzz", "--cache-dir", scratch.path("cache")], in: scratch.url)
        Self.expectError(word, status: 2, "cannot read the manifest 'zzzz': no such readable file; check the path")
    }

    // MARK: - A directory where a file belongs: 2, saying so

    @Test func aDirectoryGivenAsAnInputFileIsNamedAsOne() async throws {
        let scratch = try Scratch()
        let manifest = try scratch.write("m.json", try manifestJSON([]))
        let directory = scratch.path("folder")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        let cache = ["--cache-dir", scratch.path("cache")]
        let cases: [([String], String)] = [
            (["run", directory] + cache, "cannot read the manifest '\(directory)': it is a directory; pass the manifest file (or '-' for stdin)"),
            (["plan", directory] + cache, "cannot read the manifest '\(directory)': it is a directory; pass the manifest file (or '-' for stdin)"),
            (["run", manifest, "--header", "@" + directory] + cache,
             "cannot read the --header file '\(directory)': it is a directory; pass a file of 'Name: value' lines"),
            (["run", manifest, "--trusted-key", directory] + cache,
             "cannot read --trusted-key '\(directory)': it is a directory; pass a signify public key file (KEY.pub)"),
            (["run", manifest, "--cacert", directory] + cache,
             "cannot read --cacert '\(directory)': it is a directory; pass the CA's certificate file, in PEM form"),
            (["simulate", manifest, "--events", directory] + cache,
             "cannot read the events file '\(directory)': it is a directory; pass the events file (JSON lines)"),
        ]
        for (arguments, message) in cases {
            Self.expectError(try await CommandRunner.prefetch(arguments), status: 2, message)
        }
        #expect(access(scratch.path("cache"), F_OK) != 0, "a refused input left the cache untouched")
    }

    // MARK: - The argument parser's errors: the same format, exit 2

    @Test func theArgumentParsersErrorsAreOursWithOneHint() async throws {
        let scratch = try Scratch()
        let manifest = try scratch.write("m.json", try manifestJSON([]))
        let cases: [([String], String, String)] = [
            (["run"], "no manifest: give a path, '-' or a URL, or set 'manifest = URL' in /etc/prefetch/prefetch.conf", "run"),
            (["run", manifest, "--concurency", "3"], "unknown option '--concurency'; did you mean '--concurrency'?", "run"),
            ([manifest, "--concurrency", "0"], "--concurrency must be between 1 and 256", "run"),
            (["status", "--json", "--bogus"], "unknown option '--bogus'", "status"),
            (["gc", "--wait", "soon"], "the value 'soon' is invalid for '--wait <seconds>'", "gc"),
            // Issue 36: what a value takes, and a negative number is a value, not a missing one.
            ([manifest, "--max-run-time", "-1"],
             "the value '-1' is invalid for '--max-run-time <seconds>'; --max-run-time takes a number of seconds from 0 to", "run"),
            (["gc", "--budget", "10 XB"],
             "the value '10 XB' is invalid for '--budget <size>'; --budget takes a whole number of bytes, or one with a K, M or G suffix", "gc"),
            (["status", "--log-level", "loud"],
             "the value 'loud' is invalid for '--log-level <level>'; --log-level takes one of trace, debug, info, notice, warning, error or critical\n",
             "status"),
        ]
        for (arguments, message, command) in cases {
            let result = try await CommandRunner.prefetch(arguments + ["--cache-dir", scratch.path("cache")])
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            Self.expectShape(result)
            #expect(result.stderr.hasPrefix("prefetch: error: \(message)"), "\(arguments): \(result.stderr)")
            #expect(result.stderr.hasSuffix("\nprefetch: hint: see 'prefetch \(command) --help'\n"), "\(arguments): \(result.stderr)")
        }
        // A size as people write it is the size (gc makes a cache of an empty directory).
        try FileManager.default.createDirectory(atPath: scratch.path("cache"), withIntermediateDirectories: true)
        let spaced = try await CommandRunner.prefetch(["gc", "--budget", "10 MB", "--json", "--cache-dir", scratch.path("cache")])
        #expect(spaced.status == 0, "\(spaced.stderr)")
        #expect(try spaced.jsonObject()["budget"] as? Int == 10 << 20, "\(spaced.stdoutText)")
        // Help and the version are answers, not errors: stdout, exit 0, as before.
        for arguments in [["--help"], ["run", "--help"], ["help"], ["--version"]] {
            let result = try await CommandRunner.prefetch(arguments)
            #expect(result.status == 0 && result.stderr.isEmpty && !result.stdout.isEmpty, "\(arguments): \(result.stderr)")
        }
    }

    /// Issue 36: the help opens with what there is to do, the exit codes after
    /// the commands; a bare `prefetch` (no manifest configured) is someone
    /// asking what it does: the same text, on stderr, exit 2.
    @Test func theHelpListsTheCommandsFirstAndABarePrefetchPrintsIt() async throws {
        let help = try await CommandRunner.prefetch(["--help"])
        let text = help.stdoutText
        let commands = try #require(text.range(of: "SUBCOMMANDS:"), "\(text)")
        let codes = try #require(text.range(of: "EXIT CODES:"), "\(text)")
        #expect(commands.lowerBound < codes.lowerBound && text.contains("  run and plan, the first that applies: 2 usage error"), "\(text)")
        #expect(text.hasPrefix("OVERVIEW: Prefetch, validate and cache the assets of in-app messages.\n\nUSAGE: "), "\(text)")
        let bare = try await CommandRunner.prefetch([])
        #expect(bare.status == 2 && bare.stdout.isEmpty, "\(bare.stdoutText)")
        #expect(bare.stderr == text, "\(bare.stderr)")
    }
}
