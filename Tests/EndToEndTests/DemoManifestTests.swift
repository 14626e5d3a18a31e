import FixtureServer
import Foundation
import Testing

/// `make demo` runs exactly this: fixtures/manifests/demo.json against the fixture
/// assets. Each message records the verdict it must get in `extras.expect`.
@Suite struct DemoManifestTests {
    @Test func everyMessageGetsTheVerdictRecordedBesideIt() async throws {
        let scratch = try Scratch()
        let server = try await FixtureServer.start(root: Package.assets.path)
        let template = try String(contentsOf: Package.manifests.appendingPathComponent("demo.json"), encoding: .utf8)
        let manifest = try scratch.write("demo.json", template.replacingOccurrences(of: "http://fixtures.test", with: server.baseURL))

        let result = try await CommandRunner.prefetch(["run", manifest, "--cache-dir", scratch.path("cache"), "--json"])
        try await server.stop()

        #expect(result.status == 1, "some messages are discarded on purpose: \(result.stderr)")
        let report = try result.report()
        let document = try JSONSerialization.jsonObject(with: Data(template.utf8)) as! [String: Any]
        let expected = (document["triggers"] as! [[String: Any]]).compactMap { trigger -> (String, String)? in
            guard trigger["type"] as? String == "inapp",
                  let extras = (trigger["data"] as? [String: Any])?["extras"] as? [String: Any],
                  let expect = extras["expect"] as? String else { return nil }
            return (trigger["id"] as! String, expect)
        }
        #expect(expected.count == report.messages.count)
        for (id, verdict) in expected {
            #expect(report.message(id)?.verdict == verdict, "\(id): \(report.message(id)?.detail ?? "")")
        }
        for message in report.messages where message.status == "ready" {
            for asset in message.assets {
                #expect(FileManager.default.fileExists(atPath: asset.path), "\(message.id): \(asset.path)")
                #expect(asset.path.hasPrefix(scratch.path("cache") + "/"))
            }
        }
    }

    /// The README's counts hold on every run into one cache (a partial download
    /// resumed a little further each run once made them drift), and
    /// `downloaded_bytes` is every body byte the server sent in that run: error
    /// pages and failed attempts included.
    @Test func runsIntoOneCacheGiveTheSameCountsAndCountEveryBodyByteSent() async throws {
        let scratch = try Scratch()
        let server = try await FixtureServer.start(root: Package.assets.path)
        let template = try String(contentsOf: Package.manifests.appendingPathComponent("demo.json"), encoding: .utf8)
        let manifest = try scratch.write("demo.json", template.replacingOccurrences(of: "http://fixtures.test", with: server.baseURL))

        var downloaded: [Int] = []
        for run in 1...3 {
            server.resetLog()
            let result = try await CommandRunner.prefetch(["run", manifest, "--cache-dir", scratch.path("cache"), "--json"])
            #expect(result.status == 1, "run \(run): \(result.stderr)")
            let totals = try result.report().totals
            let counts: [Int] = [totals.messages, totals.ready, totals.discarded, totals.deferred, totals.expired, totals.assets]
            #expect(counts == [26, 13, 10, 2, 1, 21], "run \(run)")
            let sent = server.requests().reduce(0) { $0 + $1.bodyBytes }
            #expect(totals.downloaded_bytes == sent, "run \(run)")
            downloaded.append(totals.downloaded_bytes)
        }
        try await server.stop()
        // Only what failed is fetched again, and it fails the same way each time.
        #expect(downloaded[1] > 0 && downloaded[1] < downloaded[0] && downloaded[2] == downloaded[1], "\(downloaded)")
    }
}
