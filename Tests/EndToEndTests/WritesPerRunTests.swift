import FixtureServer
import Foundation
import Testing

/// Issue 37, point 4: a run in which nothing changed writes almost nothing
/// but `state.json` (docs/cache-format.md#what-a-run-writes). A ref's last use
/// is recorded to within a day, `needed.json` only when the manifest needs
/// other refs, and a 304's new lifetime in `state.json`, not in the ref.
@Suite struct WritesPerRunTests {
    /// Each file's inode and modification time: a rewrite or a touch changes one.
    static func identities(_ paths: [String]) throws -> [String: [Double]] {
        var result: [String: [Double]] = [:]
        for path in paths {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            let inode = (attributes[.systemFileNumber] as? NSNumber)?.doubleValue ?? -1
            let mtime = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? -1
            result[path] = [inode, mtime]
        }
        return result
    }

    @Test func anUnchangedRunLeavesEveryRefAndNeededJSONAloneAndARunADayLaterRecordsTheUse() async throws {
        // Two images fresh for a day, and a manifest file that names them.
        let setup = try await LiveReadinessTests.Setup.make()
        let day = "?cache_control=max-age%3D86400"
        let manifest = try setup.scratch.write("m.json", try manifestJSON([
            inapp("a", ["type": "MODAL", "message": "a", "image_url": setup.server.url("img/rgb.png\(day)")]),
            inapp("b", ["type": "MODAL", "message": "b", "image_url": setup.server.url("img/gray.png\(day)")]),
        ]))
        #expect(try await setup.prefetch(["run", manifest]).status == 0)
        let refs = try FileManager.default.contentsOfDirectory(atPath: "\(setup.cache)/refs").map { "\(setup.cache)/refs/\($0)" }
        #expect(refs.count == 2, "\(refs)")
        let watched = refs + ["\(setup.cache)/needed.json"]
        let before = try Self.identities(watched)

        let warm = try await setup.prefetch(["run", manifest, "--json"])
        #expect(warm.status == 0, "\(warm.stderr)")
        #expect(try warm.report().assets.map(\.outcome) == ["fresh", "fresh"])
        #expect(try Self.identities(watched) == before, "an unchanged run touched or rewrote a ref or needed.json")

        // Last used two days ago: the next run records this use.
        let twoDaysAgo = Date(timeIntervalSinceNow: -2 * 86_400)
        for path in refs { try FileManager.default.setAttributes([.modificationDate: twoDaysAgo], ofItemAtPath: path) }
        let started = Date().timeIntervalSince1970.rounded(.down)
        let later = try await setup.prefetch(["run", manifest, "--json"])
        #expect(later.status == 0, "\(later.stderr)")
        #expect(try later.report().assets.map(\.outcome) == ["fresh", "fresh"])
        for (path, identity) in try Self.identities(refs) {
            #expect(identity[0] == before[path]?[0], "\(path) was rewritten, not touched")
            #expect(identity[1] >= started, "\(path): its use was not recorded")
        }
        let listing = try await setup.prefetch(["ls", "--json"]).jsonObject()
        let objects = try #require(listing["objects"] as? [[String: Any]])
        #expect(objects.count == 2 && objects.allSatisfy { ($0["last_used"] as? Double ?? 0) >= started }, "\(objects)")
        try await setup.server.stop()
    }

    /// A copy fresh for 10 minutes, revalidated 20 minutes later (the clock
    /// moved by faketime): the 304's new lifetime holds for the next run,
    /// which asks nothing, and ends on time, though the ref was never rewritten.
    @Test func a304sLifetimeIsKeptInStateJSONAndHoldsWithoutARewriteOfTheRef() async throws {
        let setup = try await LiveReadinessTests.Setup.make()
        let manifest = try setup.scratch.write("m.json", try manifestJSON([
            inapp("a", ["type": "MODAL", "message": "a", "image_url": setup.server.url("img/rgb.png?cache_control=max-age%3D600")]),
        ]))
        let start = Date().timeIntervalSince1970.rounded(.down)
        func run(after seconds: Double) async throws -> [String] {
            let result = try await SystemTool.runAllowingFailure("faketime", [
                "@\(Int(start + seconds))", CommandRunner.binDirectory.appendingPathComponent("prefetch").path,
                "run", manifest, "--cache-dir", setup.cache, "--json",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            return try result.report().assets.map(\.outcome)
        }
        #expect(try await run(after: 0) == ["downloaded"])
        let ref = try #require(try FileManager.default.contentsOfDirectory(atPath: "\(setup.cache)/refs").first)
        let before = try Self.identities(["\(setup.cache)/refs/\(ref)"])

        #expect(try await run(after: 1200) == ["revalidated"])
        let state = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(setup.cache)/state.json"))) as? [String: Any]
        let entry = try #require((state?["revalidated"] as? [String: [Double]])?[ref])
        #expect(entry.count == 3 && entry[1] >= start + 1200 && entry[2] == 600, "\(entry)")
        let asked = setup.server.requests().count
        #expect(try await run(after: 1500) == ["fresh"])
        #expect(setup.server.requests().count == asked, "a copy the 304 made fresh was asked for again")
        #expect(try await run(after: 1900) == ["revalidated"])
        #expect(setup.server.requests().count == asked + 1)
        #expect(try Self.identities(["\(setup.cache)/refs/\(ref)"]) == before, "a 304 rewrote the ref")
        try await setup.server.stop()
    }
}
