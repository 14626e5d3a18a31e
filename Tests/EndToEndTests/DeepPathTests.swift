import FixtureServer
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue 19, point 2: paths deeper than PATH_MAX. A ZIP of 17 directory levels of
/// 250-byte names (4,267 bytes before the file name) used to unpack, then fail
/// its commit with ENAMETOOLONG on every run (exit 74) and leave its tree in
/// `tmp/`, which `gc` could not remove and `status` did not count.
@Suite struct DeepPathTests {
    static let levels = (0..<17).map { String(format: "%02d", $0) + String(repeating: "d", count: 248) }

    /// Opens each level with openat, as no path string can reach that deep.
    static func withDirectory<T>(_ root: String, _ components: [String], create: Bool = false, _ body: (Int32) -> T) -> T? {
        var fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        for component in components {
            if create { mkdirat(fd, component, 0o755) }
            let next = openat(fd, component, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            close(fd)
            guard next >= 0 else { return nil }
            fd = next
        }
        defer { close(fd) }
        return body(fd)
    }

    static func read(_ root: String, _ components: [String], _ name: String) -> String? {
        withDirectory(root, components) { directory -> String? in
            let fd = openat(directory, name, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return nil }
            defer { close(fd) }
            return FileHandle(fileDescriptor: fd, closeOnDealloc: false).readDataToEndOfFile().utf8Text
        } ?? nil
    }

    func status(_ cache: String) async throws -> [String: Any] {
        let result = try await CommandRunner.prefetch(["status", "--json", "--cache-dir", cache])
        #expect(result.status == 0, "\(result.stderr)")
        return try JSONSerialization.jsonObject(with: result.stdout) as! [String: Any]
    }

    @Test func aTreeDeeperThanPathMaxIsCommittedServedCollectedAndLeavesNothingInTmp() async throws {
        let scratch = try Scratch()
        let deep = Self.levels.joined(separator: "/")
        let zip = StoredZip.make([
            ("index.html", Array("<p>top</p>\n".utf8)),
            ("\(deep)/a.html", Array("<p>a</p>\n".utf8)),
            ("\(deep)/b.css", Array("p { color: red }\n".utf8)),
        ])
        try FileManager.default.createDirectory(atPath: scratch.path("www"), withIntermediateDirectories: true)
        try zip.write(to: URL(fileURLWithPath: scratch.path("www/deep.zip")))
        let server = try await FixtureServer.start(root: scratch.path("www"))
        // no-store: no ref keeps the tree, so `gc` removes it and every run
        // downloads, unpacks and commits it again.
        let manifest = try scratch.write("m.json", try manifestJSON([
            inapp("deep", ["type": "HTML_FULL", "zipped_assets_url": server.url("deep.zip?cache_control=no-store")]),
        ]))
        let cache = scratch.path("cache")

        for round in 1...3 {
            let run = try await CommandRunner.prefetch(["run", manifest, "--cache-dir", cache, "--json"])
            #expect(run.status == 0, "round \(round): \(run.stderr)")
            let tree = try #require(try run.report().message("deep")?.assets.first?.path)
            #expect(Self.read(tree, Self.levels, "a.html") == "<p>a</p>\n", "round \(round)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: "\(cache)/tmp").isEmpty, "round \(round)")
            #expect(try await status(cache)["tmp_bytes"] as? Int == 0, "round \(round)")
            #expect(try await CommandRunner.prefetch(["verify", "--cache-dir", cache]).status == 0, "round \(round)")

            let gc = try await CommandRunner.prefetch(["gc", "--cache-dir", cache])
            #expect(gc.status == 0, "\(gc.stderr)")
            #expect(gc.stdoutText.contains("removed 1 object and 1 tree"), "round \(round): \(gc.stdoutText)")
            #expect(!FileManager.default.fileExists(atPath: tree), "round \(round)")
            // Issue 36: the shard directories it emptied go too.
            for parent in ["objects", "trees", "leases"] {
                let left = try FileManager.default.contentsOfDirectory(atPath: "\(cache)/\(parent)")
                #expect(left.isEmpty, "round \(round): \(parent)/ holds \(left)")
            }
        }
        try await server.stop()
    }

    @Test func leftoversAtAnyDepthInTmpAreCountedAndSwept() async throws {
        let scratch = try Scratch()
        let cache = scratch.path("cache")
        // gc makes a cache of an empty directory, never of a missing one.
        try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
        #expect(try await CommandRunner.prefetch(["gc", "--cache-dir", cache]).status == 0)
        // What a run killed while unpacking leaves behind, planted by hand.
        let planted = Self.withDirectory("\(cache)/tmp", ["tree-1"] + Self.levels, create: true) { fd -> Bool in
            let file = openat(fd, "left.bin", O_CREAT | O_WRONLY | O_CLOEXEC, 0o644)
            defer { close(file) }
            return file >= 0 && write(file, [UInt8](repeating: 7, count: 5000), 5000) == 5000
        }
        #expect(planted == true)
        #expect(try await status(cache)["tmp_bytes"] as? Int == 5000)

        let gc = try await CommandRunner.prefetch(["gc", "--cache-dir", cache])
        #expect(gc.status == 0, "\(gc.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(cache)/tmp").isEmpty)
        #expect(try await status(cache)["tmp_bytes"] as? Int == 0)
    }
}

private extension Data {
    var utf8Text: String { String(decoding: self, as: UTF8.self) }
}
