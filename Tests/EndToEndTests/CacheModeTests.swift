import FixtureServer
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue 19, points 3 and 8, through the real binary: modes are set whatever the
/// umask (directories 0755, objects 0444, tree files 0644; refs and state.json
/// 0640 and refs/ and tmp/ 0750, since URLs may carry credentials), and a cache directory others
/// could write into is refused with exit 2 and the command that fixes it; one
/// that belongs to someone else, to a writer, with exit 77 (issue 28).
@Suite struct CacheModeTests {
    static func mode(_ path: String) -> Int {
        var info = stat()
        return lstat(path, &info) == 0 ? Int(info.st_mode & 0o7777) : -1
    }

    /// `prefetch` under `umask 000`, set by a shell that then becomes it.
    static func prefetchUnderUmask000(_ arguments: [String]) async throws -> CommandResult {
        let prefetch = CommandRunner.binDirectory.appendingPathComponent("prefetch").path
        return try await CommandRunner.run(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "umask 000 && exec \"$0\" \"$@\"", prefetch] + arguments)
    }

    @Test func umask000StillGivesNoGroupOrWorldWritableDirectoryAndPrivateRefs() async throws {
        let scratch = try Scratch()
        let server = try await FixtureServer.start(root: Package.assets.path)
        let manifest = try scratch.write("m.json", try manifestJSON([
            inapp("image", ["type": "MODAL", "image_url": server.url("img/rgb.png")]),
            inapp("bundle", ["type": "HTML_FULL", "zipped_assets_url": server.url("html/bundle.zip")]),
        ]))
        // Two parents that do not exist yet: made too, with the same mode.
        let cache = scratch.path("a/b/cache")
        let run = try await Self.prefetchUnderUmask000(["run", manifest, "--cache-dir", cache])
        try await server.stop()
        #expect(run.status == 0, "\(run.stderr)")

        for path in [scratch.path("a"), scratch.path("a/b"), cache] { #expect(Self.mode(path) == 0o755, "\(path)") }
        var seen: Set<String> = []
        for name in FileManager.default.subpaths(atPath: cache) ?? [] {
            let path = "\(cache)/\(name)", mode = Self.mode(path)
            var info = stat()
            _ = lstat(path, &info)
            let kind: String
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                kind = "directory"
                let privateFolder = name == "refs" || name == "tmp" || name.hasPrefix("tmp/")
                #expect(mode == (privateFolder ? 0o750 : 0o755), "\(name) \(String(mode, radix: 8))")
            case S_IFREG where name.hasPrefix("objects/"): kind = "object"; #expect(mode == 0o444, "\(name)")
            case S_IFREG where name.hasPrefix("trees/"): kind = "tree file"; #expect(mode == 0o644, "\(name)")
            case S_IFREG where name.hasPrefix("refs/") || name == "state.json": kind = "private"; #expect(mode == 0o640, "\(name)")
            case S_IFREG: kind = "other"; #expect(mode & 0o022 == 0, "\(name) \(String(mode, radix: 8))")
            default: kind = "unexpected"; Issue.record("\(name) is neither a file nor a directory")
            }
            seen.insert(kind)
        }
        #expect(seen == ["directory", "object", "tree file", "private", "other"])

        // refs/ as a cache made before it was private has it: closed on the next write.
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: "\(cache)/refs")
        #expect(try await CommandRunner.prefetch(["gc", "--cache-dir", cache]).status == 0)
        #expect(Self.mode("\(cache)/refs") == 0o750)
    }

    /// A cache in `cache` that one run of a one-message manifest filled.
    static func cachedRun() async throws -> (Scratch, FixtureServer, String) {
        let scratch = try Scratch()
        let names = try writeStyleSheets(1, in: scratch.path("www"))
        let server = try await FixtureServer.start(root: scratch.path("www"))
        let manifest = try scratch.write("m.json", try manifestJSON(htmlMessages(names, server: server.url)))
        #expect(try await CommandRunner.prefetch(["run", manifest, "--cache-dir", scratch.path("cache")]).status == 0)
        return (scratch, server, manifest)
    }

    @Test func aCacheOthersCanWriteIsRefusedWithTheFixAndLeftAsItWas() async throws {
        let (scratch, server, manifest) = try await Self.cachedRun()
        let cache = scratch.path("cache")

        for (directory, mode) in [(cache, 0o777), ("\(cache)/refs", 0o775)] {
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: directory)
            let before = snapshot(cache)
            for command in [["run", manifest], ["gc"], ["plan", manifest], ["status"]] {
                let result = try await CommandRunner.prefetch(command + ["--cache-dir", cache])
                #expect(result.status == 2, "\(command[0]) with \(directory) at \(String(mode, radix: 8)): \(result.stderr)")
                #expect(result.stderr.contains("chmod go-w \(directory)"), "\(command[0]): \(result.stderr)")
            }
            #expect(snapshot(cache) == before)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory)
        }
        #expect(try await CommandRunner.prefetch(["run", manifest, "--cache-dir", cache]).status == 0)
        try await server.stop()
    }

    /// /tmp is everyone's: the hint names a cache directory of one's own, never
    /// a chmod of /tmp, which would break every other user of it (issue 36).
    @Test func theSharedTmpIsRefusedWithADirectoryOfOnesOwnNotAChmod() async throws {
        let manifest = Package.manifests.appendingPathComponent("two-messages.json").path
        for command in [["run", manifest], ["plan", manifest], ["status"]] {
            let result = try await CommandRunner.prefetch(command + ["--cache-dir", "/tmp"])
            #expect(result.status == 2, "\(command[0]): \(result.stderr)")
            #expect(result.stderr.contains("/tmp is writable by everyone (mode 1777)"), "\(command[0]): \(result.stderr)")
            #expect(result.stderr.contains("use a directory of your own instead"), "\(command[0]): \(result.stderr)")
            #expect(result.stderr.contains("--cache-dir ~/.cache/prefetch"), "\(command[0]): \(result.stderr)")
            #expect(!result.stderr.contains("chmod"), "\(command[0]): \(result.stderr)")
        }
    }

    /// Only root can give a directory away, so only a test run as root shows it.
    @Test(.enabled(if: geteuid() == 0))
    func aCacheOfAnotherUserIsRefusedToWritersButReadable() async throws {
        let (scratch, server, manifest) = try await Self.cachedRun()
        let cache = scratch.path("cache")
        try await server.stop()
        #expect(chown(cache, 65534, 65534) == 0)
        defer { _ = chown(cache, 0, 0) }

        // Not a cache to fix but another user's to use: exit 77, run as them (issue 28).
        let gc = try await CommandRunner.prefetch(["gc", "--cache-dir", cache])
        #expect(gc.status == 77)
        #expect(gc.stderr.contains("\(cache): it belongs to uid 65534"), "\(gc.stderr)")
        #expect(gc.stderr.contains("run as that user (sudo -u nobody prefetch …)"), "\(gc.stderr)")
        // A reader writes nothing: an app may read a cache another user keeps for it.
        let plan = try await CommandRunner.prefetch(["plan", manifest, "--cache-dir", cache, "--json"])
        #expect(plan.status == 0, "\(plan.stderr)")
    }
}
