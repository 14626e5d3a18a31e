import FixtureServer
import Foundation
import Testing

/// Issue 36, point 4: a run whose asset servers cannot be reached says so at
/// the default log level, one warning per host, and exits 3 (stale copies in
/// use) rather than 1 (some message discarded); a URL manifest's retries are
/// logged and counted in the run's `duration_ms`.
@Suite struct UnreachableServerTests {
    /// Two hosts, one image message each, revalidated on every run (`no-cache`).
    @Test func assetServersDownExit3WithOneWarningPerHost() async throws {
        let scratch = try Scratch()
        let first = try await FixtureServer.start(root: Package.assets.path)
        let second = try await FixtureServer.start(root: Package.assets.path)
        let manifest = try scratch.write("m.json", try manifestJSON([
            inapp("one", ["type": "MODAL", "image_url": first.url("img/rgb.png?cache_control=no-cache")]),
            inapp("two", ["type": "MODAL", "image_url": second.url("img/gray.png?cache_control=no-cache")]),
            inapp("three", ["type": "MODAL", "image_url": second.url("img/rgb.png?cache_control=no-cache")]),
        ]))
        let command = ["run", manifest, "--cache-dir", scratch.path("cache"), "--json", "--retries", "0", "--link-wait", "0"]
        let filled = try await CommandRunner.prefetch(command)
        #expect(filled.status == 0, "\(filled.stderr)")
        let hosts = [first.url(""), second.url("")].map { String($0.dropLast()) }
        try await first.stop()
        try await second.stop()

        let run = try await CommandRunner.prefetch(command)
        #expect(run.status == 3, "\(run.stderr)")
        #expect(try run.report().messages.map(\.status) == ["ready", "ready", "ready"])
        let warnings = run.stderr.split(separator: "\n").filter { $0.contains("could not be reached") }
        #expect(warnings.count == 2, "\(run.stderr)")
        for (host, messages) in zip(hosts, ["1 message runs", "2 messages run"]) {
            let lines = warnings.filter { $0.contains("warning: \(host) could not be reached") }
            #expect(lines.count == 1, "\(host): \(run.stderr)")
            #expect(lines.first?.contains("\(messages) on stale copies") == true, "\(run.stderr)")
            #expect(lines.first?.contains("the oldest stored ") == true, "\(run.stderr)")
        }
    }

    /// `fail_first=2` answers the manifest 503 twice: both retries are logged
    /// with their waits, and `duration_ms` holds them.
    @Test func aURLManifestsRetriesAreLoggedAndCountedInTheDuration() async throws {
        let scratch = try Scratch()
        let server = try await FixtureServer.start(root: Package.assets.path)
        let www = scratch.path("www")
        try FileManager.default.createDirectory(atPath: www, withIntermediateDirectories: true)
        try Data(try manifestJSON([inapp("one", ["type": "MODAL", "image_url": server.url("img/rgb.png")])]).utf8)
            .write(to: URL(fileURLWithPath: "\(www)/m.json"))
        let manifests = try await FixtureServer.start(root: www)
        let url = manifests.url("m.json?fail_first=2&fail_status=503")
        let run = try await CommandRunner.prefetch(["run", url, "--cache-dir", scratch.path("cache"), "--json", "--retries", "2", "--log-level", "notice"])
        try await server.stop()
        try await manifests.stop()
        #expect(run.status == 0, "\(run.stderr)")
        let retries = run.stderr.split(separator: "\n").filter { $0.contains("retrying \(url) in ") }
        #expect(retries.count == 2, "\(run.stderr)")
        let waits = retries.compactMap { line -> Double? in
            guard let range = line.range(of: "retrying \(url) in ") else { return nil }
            return Double(line[range.upperBound...].prefix { $0 != " " })
        }
        #expect(waits.count == 2)
        // Each wait is printed to 0.1 s: allow its rounding.
        let waited = waits.reduce(0, +) - 0.05 * Double(waits.count)
        #expect(Double(try run.report().duration_ms) >= waited * 1000, "\(run.stderr)")
    }
}
