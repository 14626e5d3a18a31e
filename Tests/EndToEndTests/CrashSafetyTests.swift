import FixtureServer
import Foundation
import Testing

/// docs/cache-format.md: a writer killed at any moment leaves each URL with no entry or a
/// complete one, and concurrent writers never damage the cache.
@Suite struct CrashSafetyTests {
    @Test func killedAtTwentyMomentsTheCacheStaysVerifiedAndNothingCommittedIsRefetched() async throws {
        let scratch = try Scratch()
        let names = try writeStyleSheets(100, in: scratch.path("www"), bytes: 8192)
        let server = try await FixtureServer.start(root: scratch.path("www"))
        let manifest = try scratch.write("m.json", try manifestJSON(
            htmlMessages(names, server: server.url, query: "?cache_control=no-cache&delay_ms=10")))
        let cache = scratch.path("cache")

        for moment in stride(from: 5, through: 100, by: 5) {
            server.resetLog()
            let child = try RunningCommand(["run", manifest, "--cache-dir", cache, "--quiet"])
            _ = await server.waitForRequests(count: moment, timeout: .seconds(60))
            child.signal(SIGKILL)
            _ = await child.wait()
            let verify = try await CommandRunner.prefetch(["verify", "--cache-dir", cache])
            #expect(verify.status == 0, "after a kill at request \(moment): \(verify.stderr)")
        }

        let committed = Set(try FileManager.default.contentsOfDirectory(atPath: "\(cache)/refs").compactMap { name -> String? in
            let data = try Data(contentsOf: URL(fileURLWithPath: "\(cache)/refs/\(name)"))
            return (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["url"] as? String
        })
        #expect(!committed.isEmpty)
        server.resetLog()
        let final = try await CommandRunner.prefetch(["run", manifest, "--cache-dir", cache, "--json"])
        let requests = server.requests()
        try await server.stop()

        #expect(final.status == 0, "\(final.stderr)")
        #expect(try final.report().totals.ready == 100)
        let refetched = requests.filter { $0.status == 200 && committed.contains(server.url(String($0.target.dropFirst()))) }
        #expect(refetched.isEmpty, "refetched: \(refetched.map(\.target))")
        #expect(try await CommandRunner.prefetch(["verify", "--cache-dir", cache]).status == 0)
    }

    @Test func fourWritersAtOnceNeverDamageTheCache() async throws {
        let scratch = try Scratch()
        let names = try writeStyleSheets(40, in: scratch.path("www"))
        let server = try await FixtureServer.start(root: scratch.path("www"))
        let manifest = try scratch.write("m.json", try manifestJSON(
            htmlMessages(names, server: server.url, query: "?cache_control=no-cache&delay_ms=20")))
        let cache = scratch.path("cache")

        let statuses = await withTaskGroup(of: Int32.self) { group in
            for _ in 0..<4 {
                group.addTask { (try? await CommandRunner.prefetch(["run", manifest, "--cache-dir", cache, "--quiet"]))?.status ?? -1 }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses.allSatisfy { [0, 1, 75].contains($0) }, "\(statuses)")
        #expect(statuses.contains(0))
        #expect(try await CommandRunner.prefetch(["verify", "--cache-dir", cache]).status == 0)

        let waited = await withTaskGroup(of: Int32.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    (try? await CommandRunner.prefetch(["run", manifest, "--cache-dir", cache, "--quiet", "--wait", "120"]))?.status ?? -1
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        try await server.stop()
        #expect(waited == [0, 0, 0, 0])
        #expect(try await CommandRunner.prefetch(["verify", "--cache-dir", cache]).status == 0)
    }
}
