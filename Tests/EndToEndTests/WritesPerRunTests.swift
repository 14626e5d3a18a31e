import FixtureServer
import Foundation
import Testing

/// Issue 37, point 4: a run in which nothing changed writes almost nothing.
/// A ref's last use is recorded to within a day (docs/cache-format.md#eviction),
/// and scrub.json is left alone when a scrub of the whole cache changed nothing.
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

    @Test func anUnchangedRunLeavesEveryRefAndScrubJSONAloneAndARunADayLaterRecordsTheUse() async throws {
        // Two images fresh for a day, and a manifest file that names them.
        let setup = try await LiveReadinessTests.Setup.make()
        let day = "?cache_control=max-age%3D86400"
        let manifest = try setup.scratch.write("m.json", try manifestJSON([
            inapp("a", ["type": "MODAL", "message": "a", "image_url": setup.server.url("img/rgb.png\(day)")]),
            inapp("b", ["type": "MODAL", "message": "b", "image_url": setup.server.url("img/gray.png\(day)")]),
        ]))
        #expect(try await setup.prefetch(["run", manifest]).status == 0)
        // The cold run's scrub saw an empty cache: the next records the new entries.
        #expect(try await setup.prefetch(["run", manifest]).status == 0)
        let refs = try FileManager.default.contentsOfDirectory(atPath: "\(setup.cache)/refs").map { "\(setup.cache)/refs/\($0)" }
        #expect(refs.count == 2, "\(refs)")
        let watched = refs + ["\(setup.cache)/scrub.json"]
        let before = try Self.identities(watched)

        let warm = try await setup.prefetch(["run", manifest, "--json"])
        #expect(warm.status == 0, "\(warm.stderr)")
        #expect(try warm.report().assets.map(\.outcome) == ["fresh", "fresh"])
        #expect(try Self.identities(watched) == before, "an unchanged run touched or rewrote a ref or scrub.json")

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
}
