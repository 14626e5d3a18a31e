import FixtureServer
import Foundation
import Testing

/// docs/cli.md: 0 all ready, 1 some discarded, 2 refused input with nothing changed.
@Suite struct ExitCodeTests {
    @Test func everyMessageReadyExitsZero() async throws {
        let scratch = try Scratch()
        let server = try await FixtureServer.start(root: Package.assets.path)
        let manifest = try scratch.write("m.json", try manifestJSON([
            inapp("a", ["type": "SLIDEUP", "image_url": server.url("img/gray.png")]),
            inapp("b", ["type": "HTML_FULL", "zipped_assets_url": server.url("html/bundle.zip")]),
        ]))
        let result = try await CommandRunner.prefetch(["run", manifest, "--cache-dir", scratch.path("cache"), "--json"])
        try await server.stop()
        #expect(result.status == 0, "\(result.stderr)")
        let bundle = try #require(try result.report().message("b")?.assets.first?.path)
        let index = try String(contentsOfFile: "\(bundle)/index.html", encoding: .utf8)
        #expect(index.contains("<html"))
    }

    @Test func runIsTheDefaultSubcommand() async throws {
        let scratch = try Scratch()
        let manifest = try scratch.write("m.json", try manifestJSON([inapp("c", ["type": "MODAL", "is_control": true])]))
        let result = try await CommandRunner.prefetch([manifest, "--cache-dir", scratch.path("cache"), "--json"])
        #expect(result.status == 0)
        #expect(try result.report().message("c")?.status == "ready")
    }

    @Test func manifestFromStdin() async throws {
        let scratch = try Scratch()
        let json = try manifestJSON([inapp("c", ["type": "FULL"])])
        let result = try await CommandRunner.prefetch(["run", "-", "--cache-dir", scratch.path("cache"), "--json"], stdin: Data(json.utf8))
        #expect(result.status == 1)
        #expect(try result.report().message("c")?.verdict == "discarded:full_without_image")
    }

    @Test func quietPrintsNothingButTheExitCodeSays() async throws {
        let scratch = try Scratch()
        let manifest = try scratch.write("m.json", try manifestJSON([inapp("c", ["type": "FULL"])]))
        let result = try await CommandRunner.prefetch(["run", manifest, "--cache-dir", scratch.path("cache"), "--quiet"])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.isEmpty)
    }

    @Test func badManifestExitsTwoNamingThePathAndTouchesNothing() async throws {
        let scratch = try Scratch()
        let manifest = try scratch.write("m.json", #"{"triggers": [{"id": "a", "type": "inapp", "data": {"image_url": 42}}]}"#)
        let result = try await CommandRunner.prefetch(["run", manifest, "--cache-dir", scratch.path("cache")])
        #expect(result.status == 2)
        #expect(result.stderr.contains("triggers[0].data.image_url"))
        #expect(scratch.listing() == ["m.json"])
    }

    @Test func foreignCacheDirectoryExitsTwoAndIsLeftAlone() async throws {
        let scratch = try Scratch()
        let manifest = try scratch.write("m.json", try manifestJSON([]))
        try FileManager.default.createDirectory(atPath: scratch.path("home"), withIntermediateDirectories: true)
        _ = try scratch.write("home/photo.jpg", "precious")
        let result = try await CommandRunner.prefetch(["run", manifest, "--cache-dir", scratch.path("home")])
        #expect(result.status == 2)
        #expect(result.stderr.contains("not a prefetch cache"))
        #expect(scratch.listing("home") == ["photo.jpg"])
    }

    @Test func usageErrorExitsTwo() async throws {
        let result = try await CommandRunner.prefetch(["run", "m.json", "--no-such-flag"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--no-such-flag"))
    }

    @Test func versionExitsZero() async throws {
        let result = try await CommandRunner.prefetch(["--version"])
        #expect(result.status == 0)
        #expect(!result.stdoutText.isEmpty)
    }
}

/// docs/cli.md: the cache directory when `--cache-dir` is not given.
@Suite struct DefaultCacheDirectoryTests {
    func cacheUsed(_ environment: [String: String], scratch: Scratch) async throws -> String {
        let manifest = try scratch.write("m.json", try manifestJSON([inapp("c", ["type": "MODAL", "is_control": true])]))
        let result = try await CommandRunner.prefetch(["run", manifest, "--json"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        return try result.report().cache_dir
    }

    @Test func prefetchCacheDirWins() async throws {
        let scratch = try Scratch()
        let used = try await cacheUsed(
            ["PREFETCH_CACHE_DIR": scratch.path("a"), "CACHE_DIRECTORY": scratch.path("b"), "XDG_CACHE_HOME": scratch.path("c")],
            scratch: scratch)
        #expect(used == scratch.path("a"))
        #expect(FileManager.default.fileExists(atPath: scratch.path("a/FORMAT")))
    }

    @Test func systemdCacheDirectoryIsNext() async throws {
        let scratch = try Scratch()
        let used = try await cacheUsed(["CACHE_DIRECTORY": scratch.path("b"), "XDG_CACHE_HOME": scratch.path("c")], scratch: scratch)
        #expect(used == scratch.path("b"))
    }

    @Test func xdgCacheHomeThenHome() async throws {
        let scratch = try Scratch()
        #expect(try await cacheUsed(["XDG_CACHE_HOME": scratch.path("c")], scratch: scratch) == scratch.path("c/prefetch"))
        #expect(try await cacheUsed(["HOME": scratch.path("home")], scratch: scratch) == scratch.path("home/.cache/prefetch"))
    }
}
