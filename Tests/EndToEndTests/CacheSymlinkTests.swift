import FixtureServer
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue 19, point 2, through the real binary: links planted in the cache (by the
/// test, as the same user) point at a victim folder outside it, and nothing in
/// the victim folder is deleted, created or re-moded, whatever the command.
@Suite struct CacheSymlinkTests {
    struct Setup {
        let scratch: Scratch
        let server: FixtureServer
        let manifest: String
        var cache: String { scratch.path("cache") }
        var victim: String { scratch.path("victim") }

        /// A cache filled by one run, and a victim folder beside it.
        static func make() async throws -> Setup {
            let scratch = try Scratch()
            let names = try writeStyleSheets(2, in: scratch.path("www"))
            let server = try await FixtureServer.start(root: scratch.path("www"))
            let manifest = try scratch.write("m.json", try manifestJSON(htmlMessages(names, server: server.url)))
            let setup = Setup(scratch: scratch, server: server, manifest: manifest)
            #expect(try await setup.prefetch(["run", manifest]).status == 0)
            try FileManager.default.createDirectory(atPath: "\(setup.victim)/sub", withIntermediateDirectories: true)
            for (name, mode) in [("keep.txt", 0o600), ("sub/inner.txt", 0o644)] {
                try Data("victim's \(name)\n".utf8).write(to: URL(fileURLWithPath: "\(setup.victim)/\(name)"))
                try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: "\(setup.victim)/\(name)")
            }
            return setup
        }

        func prefetch(_ arguments: [String]) async throws -> CommandResult {
            try await CommandRunner.prefetch(arguments + ["--cache-dir", cache])
        }

        /// Replaces `name` in the cache with a link to `target`.
        func plant(_ name: String, _ target: String) throws {
            let path = "\(cache)/\(name)"
            if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
        }

        func isLink(_ name: String) -> Bool {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(cache)/\(name)")) != nil
        }
    }

    /// Every entry of a folder: its mode and bytes.
    static func victimState(_ path: String) -> [String: String] {
        var state: [String: String] = [:]
        for name in FileManager.default.subpaths(atPath: path) ?? [] {
            let full = "\(path)/\(name)"
            let mode = (try? FileManager.default.attributesOfItem(atPath: full)[.posixPermissions] as? Int) ?? -1
            let bytes = FileManager.default.contents(atPath: full).map { String(decoding: $0, as: UTF8.self) } ?? "<dir>"
            state[name] = "\(String(mode, radix: 8)) \(bytes)"
        }
        return state
    }

    @Test func tmpLinkedToAVictimIsRemovedAsItselfAndTheVictimKeepsItsFiles() async throws {
        let setup = try await Setup.make()
        let before = Self.victimState(setup.victim)
        try setup.plant("tmp", setup.victim)

        let run = try await setup.prefetch(["run", setup.manifest, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("removed \(setup.cache)/tmp"), "\(run.stderr)")
        #expect(!setup.isLink("tmp"))
        #expect(Self.victimState(setup.victim) == before)

        // Links inside tmp/ are leftovers like any other: removed, not followed.
        try setup.plant("tmp/download-1", "\(setup.victim)/keep.txt")
        try setup.plant("tmp/partial", setup.victim)
        let gc = try await setup.prefetch(["gc"])
        #expect(gc.status == 0, "\(gc.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(setup.cache)/tmp").isEmpty)
        #expect(Self.victimState(setup.victim) == before)
        try await setup.server.stop()
    }

    @Test func lockLinkedToAVictimIsRefusedAndNothingIsCreated() async throws {
        let setup = try await Setup.make()
        try setup.plant("lock", "\(setup.victim)/nologin")

        let gc = try await setup.prefetch(["gc"])
        #expect(gc.status == 2, "\(gc.stderr)")
        #expect(gc.stderr.contains("\(setup.cache)/lock is a symbolic link"), "\(gc.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(setup.victim)/nologin"))
        let run = try await setup.prefetch(["run", setup.manifest])
        #expect(run.status == 2)
        #expect(!FileManager.default.fileExists(atPath: "\(setup.victim)/nologin"))
        try await setup.server.stop()
    }

    @Test func refsOrAShardLinkedToAVictimSurviveVerifyAndRepair() async throws {
        let setup = try await Setup.make()
        let before = Self.victimState(setup.victim)
        try setup.plant("refs", setup.victim)
        let shard = try #require(try FileManager.default.contentsOfDirectory(atPath: "\(setup.cache)/objects").first)
        try setup.plant("objects/\(shard)", "\(setup.victim)/sub")

        // A reader refuses a cache directory that is a link; it changes nothing.
        let verify = try await setup.prefetch(["verify"])
        #expect(verify.status == 2, "\(verify.stderr)")
        #expect(verify.stderr.contains("\(setup.cache)/refs is not a directory but a symbolic link"), "\(verify.stderr)")

        // A writer removes the links as themselves; repair then finds nothing to follow.
        let repair = try await setup.prefetch(["verify", "--repair"])
        #expect(repair.status == 0, "\(repair.stderr)")
        #expect(repair.stderr.contains("removed \(setup.cache)/refs"), "\(repair.stderr)")
        #expect(!setup.isLink("refs"))
        #expect(Self.victimState(setup.victim) == before)

        // The next run refetches what the links displaced and leaves the victim alone.
        let run = try await setup.prefetch(["run", setup.manifest, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("removed \(setup.cache)/objects/\(shard): a symbolic link"), "\(run.stderr)")
        #expect(!setup.isLink("objects/\(shard)"))
        #expect(try await setup.prefetch(["verify"]).status == 0)
        #expect(Self.victimState(setup.victim) == before)

        // A ref that is a link is not read through; the run replaces it as itself.
        let ref = try #require(try FileManager.default.contentsOfDirectory(atPath: "\(setup.cache)/refs").first)
        try setup.plant("refs/\(ref)", "\(setup.victim)/keep.txt")
        let again = try await setup.prefetch(["run", setup.manifest, "--json"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("ignored \(setup.cache)/refs/\(ref): a symbolic link"), "\(again.stderr)")
        #expect(!setup.isLink("refs/\(ref)"))
        #expect(Self.victimState(setup.victim) == before)
        try await setup.server.stop()
    }

    /// The attack that made root `chmod 0444` a file elsewhere: `tmp` renamed away
    /// and replaced with a link while a download is under way, with a file of the
    /// download's name waiting at the link's target.
    @Test func tmpSwappedForALinkDuringADownloadChangesNothingElsewhere() async throws {
        let scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: scratch.path("www"), withIntermediateDirectories: true)
        var generator = SystemRandomNumberGenerator()
        let body = Data((0..<32 * 1024).flatMap { _ in withUnsafeBytes(of: generator.next() as UInt64, Array.init) })
        try body.write(to: URL(fileURLWithPath: scratch.path("www/slow.bin")))
        let server = try await FixtureServer.start(root: scratch.path("www"))
        // 256 KiB at 64 KiB/s: the body flows for about four seconds.
        let url = server.url("slow.bin?rate=65536")
        let manifest = try scratch.write("m.json", try manifestJSON([inapp("slow", ["type": "HTML", "asset_urls": [url]])]))
        let cache = scratch.path("cache"), victim = scratch.path("victim")
        try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
        #expect(try await CommandRunner.prefetch(["gc", "--cache-dir", cache]).status == 0)
        try FileManager.default.createDirectory(atPath: victim, withIntermediateDirectories: true)

        let watch = try DirectoryWatch("\(cache)/tmp")
        let child = try RunningCommand(["run", manifest, "--cache-dir", cache, "--json"])
        let finished = Task { let result = await child.wait(); watch.stop(); return result }
        // The download's file appears with its first body bytes.
        let download = try #require(await watch.created(prefix: "download-"), "the run created no download file")
        try FileManager.default.moveItem(atPath: "\(cache)/tmp", toPath: "\(cache)/tmp-moved")
        try Data("secret\n".utf8).write(to: URL(fileURLWithPath: "\(victim)/\(download)"))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: "\(victim)/\(download)")
        try FileManager.default.createSymbolicLink(atPath: "\(cache)/tmp", withDestinationPath: victim)
        let before = Self.victimState(victim)

        let result = await finished.value
        try await server.stop()
        #expect(result.status == 0, "\(result.stderr)")
        // The download went on in the directory the run had opened, and was committed from there.
        let path = try #require(try result.report().message("slow")?.assets.first?.path)
        #expect(FileManager.default.contents(atPath: path) == body)
        #expect(Self.victimState(victim) == before)
        #expect(Self.victimState(victim)[download] == "600 secret\n")
    }
}
