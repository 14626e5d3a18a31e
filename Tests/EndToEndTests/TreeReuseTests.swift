import FixtureServer
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue 30, item 4: a new version of a cached ZIP links the files it shares
/// with the previous version's tree instead of writing them again; the tree is
/// still exactly the new ZIP's, and gc, the scrub and `verify` keep both trees
/// right while they share inodes.
@Suite struct TreeReuseTests {
    /// 40 files, 3 MB: a 2 MB "image", 38 pages and scripts, and `index.html`,
    /// the one file a new version edits.
    static func bundle(index: String) -> [(name: String, bytes: [UInt8])] {
        var files: [(name: String, bytes: [UInt8])] = [("index.html", Array(index.utf8)), ("img/hero.bin", DeltaSite.noise(2 << 20, seed: 1))]
        for number in 0..<38 {
            files.append(("pages/p\(number).js", DeltaSite.noise(4_096 + number * 1_000, seed: UInt64(number + 2))))
        }
        return files
    }

    static let first = bundle(index: "<html>price: 10</html>\n")
    static let second = bundle(index: "<html>price: 12, new!</html>\n")
    static let sharedBytes = second.dropFirst().reduce(0) { $0 + $1.bytes.count }

    struct Setup {
        let scratch: Scratch
        let server: FixtureServer
        let manifest: String
        /// The same manifest without the message that keeps the first version.
        let newerManifest: String
        let url: String
        var cache: String { scratch.path("cache") }

        /// The bundle's first version served, revalidated on every run; the
        /// same bytes under a second URL, whose ref keeps the first version's
        /// tree after the bundle moves on (else the run's sweep removes it at
        /// once, as it does any tree no ref names).
        static func make() async throws -> Setup {
            let scratch = try Scratch()
            try FileManager.default.createDirectory(atPath: scratch.path("www"), withIntermediateDirectories: true)
            for name in ["bundle.zip", "archived.zip"] {
                try StoredZip.make(TreeReuseTests.first).write(to: URL(fileURLWithPath: scratch.path("www/\(name)")))
            }
            let server = try await FixtureServer.start(root: scratch.path("www"))
            let url = server.url("bundle.zip") + "?cache_control=no-cache"
            let bundle = inapp("bundle", ["type": "HTML_FULL", "zipped_assets_url": url])
            let archived = inapp("archived", ["type": "HTML_FULL", "zipped_assets_url": server.url("archived.zip")])
            let manifest = try scratch.write("m.json", try manifestJSON([bundle, archived]))
            let newerManifest = try scratch.write("newer.json", try manifestJSON([bundle]))
            return Setup(scratch: scratch, server: server, manifest: manifest, newerManifest: newerManifest, url: url)
        }

        func prefetch(_ arguments: [String], cache: String? = nil) async throws -> CommandResult {
            try await CommandRunner.prefetch(arguments + ["--cache-dir", cache ?? self.cache])
        }

        /// A run's report entry for the bundle.
        func run(_ manifest: String? = nil, cache: String? = nil) async throws -> Report.Asset {
            let result = try await prefetch(["run", manifest ?? self.manifest, "--json"], cache: cache)
            #expect(result.status == 0, "\(result.stderr)")
            return try #require(try result.report().asset(url))
        }

        /// The server's file replaced by the second version: a new mtime, a new ETag.
        func publishSecondVersion() throws {
            let temporary = scratch.path("www/.bundle.zip.new")
            try StoredZip.make(TreeReuseTests.second).write(to: URL(fileURLWithPath: temporary))
            guard rename(temporary, scratch.path("www/bundle.zip")) == 0 else { throw POSIXError(.EIO) }
        }

        /// Two runs: the first version, then the second; the two trees.
        func twoVersions() async throws -> (old: String, new: String, second: Report.Asset) {
            let first = try await run()
            try publishSecondVersion()
            let second = try await run()
            #expect(second.outcome == "downloaded")
            return (try #require(first.path), try #require(second.path), second)
        }

        /// The second version unpacked from scratch, in a cache of its own.
        func scratchUnpack() async throws -> String {
            let fresh = try await run(newerManifest, cache: scratch.path("fresh"))
            #expect(fresh.unpack?.linked_files == 0)
            return try #require(fresh.path)
        }
    }

    static func status(_ path: String) -> stat {
        var info = stat()
        #expect(lstat(path, &info) == 0, "\(path)")
        return info
    }

    /// Names, bytes and modes of every file and folder below `tree`.
    static func contents(of tree: String) throws -> [String: String] {
        var found: [String: String] = [:]
        for name in FileManager.default.subpaths(atPath: tree) ?? [] {
            let info = status("\(tree)/\(name)")
            let mode = String(info.st_mode, radix: 8)
            found[name] = info.st_mode & S_IFMT == S_IFDIR ? mode
                : "\(mode) \(try Data(contentsOf: URL(fileURLWithPath: "\(tree)/\(name)")).base64EncodedString())"
        }
        return found
    }

    @Test func aNewVersionLinksItsUnchangedFilesAndIsExactlyTheNewZip() async throws {
        let setup = try await Setup.make()
        let (old, new, second) = try await setup.twoVersions()
        let reference = try await setup.scratchUnpack()

        #expect(second.unpack == Report.Unpack(files: 40, bytes: Self.sharedBytes + Self.second[0].bytes.count, linked_files: 39, linked_bytes: Self.sharedBytes))
        #expect(old != new)
        #expect(try Self.contents(of: new) == Self.contents(of: reference))
        #expect(try String(contentsOfFile: new + ".sha256sums", encoding: .utf8) == String(contentsOfFile: reference + ".sha256sums", encoding: .utf8))
        for file in Self.second.dropFirst() {
            let (before, after) = (Self.status("\(old)/\(file.name)"), Self.status("\(new)/\(file.name)"))
            #expect(before.st_ino == after.st_ino && after.st_nlink == 2, "\(file.name)")
        }
        #expect(Self.status("\(old)/index.html").st_ino != Self.status("\(new)/index.html").st_ino)
        #expect(Self.status("\(new)/index.html").st_nlink == 1)
        #expect(try String(contentsOfFile: "\(old)/index.html", encoding: .utf8) == "<html>price: 10</html>\n")
        #expect(try await setup.prefetch(["verify"]).status == 0)

        // The old version leaves the manifest: gc evicts its ref and removes its
        // tree, and the new one keeps every byte, alone with its inodes again.
        #expect(try await setup.run(setup.newerManifest).outcome == "revalidated")
        try await setup.server.stop()
        let gc = try await setup.prefetch(["gc", "--budget", "0"])
        #expect(gc.status == 0, "\(gc.stderr)")
        #expect(!FileManager.default.fileExists(atPath: old))
        #expect(try Self.contents(of: new) == Self.contents(of: reference))
        #expect(Self.status("\(new)/img/hero.bin").st_nlink == 1)
        let verify = try await setup.prefetch(["verify"])
        #expect(verify.status == 0, "\(verify.stderr)")
    }

    @Test func repairingTheOldTreeLeavesTheNewOneIntact() async throws {
        let setup = try await Setup.make()
        let (old, new, _) = try await setup.twoVersions()
        let reference = try await setup.scratchUnpack()

        // Someone replaces a shared file of the old tree (a new inode): the old
        // tree is damaged, the new one is not.
        let victim = "\(old)/img/hero.bin"
        #expect(unlink(victim) == 0)
        try Data("defaced\n".utf8).write(to: URL(fileURLWithPath: victim))
        let verify = try await setup.prefetch(["verify"])
        #expect(verify.status == 1)
        #expect(verify.stderr.contains(victim) && !verify.stderr.contains(new))

        let repair = try await setup.prefetch(["verify", "--repair"])
        #expect(repair.status == 1, "\(repair.stderr)")
        #expect(!FileManager.default.fileExists(atPath: old))
        #expect(try Self.contents(of: new) == Self.contents(of: reference))
        // The repair leaves the old version's ref for the next run, which
        // fetches and unpacks it again; then all is clean.
        #expect(try await setup.run().outcome == "revalidated")
        try await setup.server.stop()
        #expect(try Self.contents(of: new) == Self.contents(of: reference))
        let clean = try await setup.prefetch(["verify"])
        #expect(clean.status == 0, "\(clean.stderr)")
    }

    /// Root only: an immutable file (chattr +i) cannot be linked (EPERM), as on a
    /// file system without hard links; every entry is then written, with no error.
    @Test(.enabled(if: geteuid() == 0)) func whereLinksFailEveryFileIsWritten() async throws {
        let setup = try await Setup.make()
        let first = try await setup.run()
        let old = try #require(first.path)
        let files = Self.first.map { "\(old)/\($0.name)" }
        try await SystemTool.run("chattr", ["+i"] + files)
        try setup.publishSecondVersion()
        let second = try await setup.run()
        try await SystemTool.run("chattr", ["-i"] + files)
        let reference = try await setup.scratchUnpack()
        try await setup.server.stop()

        #expect(second.outcome == "downloaded")
        #expect(second.unpack?.linked_files == 0 && second.unpack?.files == 40)
        let new = try #require(second.path)
        #expect(try Self.contents(of: new) == Self.contents(of: reference))
        #expect(Self.status("\(new)/img/hero.bin").st_ino != Self.status("\(old)/img/hero.bin").st_ino)
        #expect(try await setup.prefetch(["verify"]).status == 0)
    }
}
