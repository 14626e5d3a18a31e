import FixtureServer
import Foundation
import Testing

/// Issue 4's promise through the real binary: every file of fixtures/hostile
/// (fixtures/generate_hostile.py) served in ONE manifest beside good messages.
/// Each bad one ends as its own discard with the exact reason and error kind,
/// every good one is ready, nothing is written outside the cache, and the run's
/// peak resident memory stays under 128 MiB.
@Suite struct HostileInputTests {
    static let fixtures = Package.root.appendingPathComponent("fixtures")
    static let peakMemoryLimit: Int64 = 128 * 1024 * 1024
    /// Where the absolute and `../` zip-slips of the corpus aim.
    static let escapeTarget = "/tmp/assetcache-hostile-evil.txt"

    /// expected.json: file → `error.kind`, or "ready" for bombs that are valid.
    static func expectations() throws -> [String: String] {
        let data = try Data(contentsOf: fixtures.appendingPathComponent("hostile/expected.json"))
        return try JSONDecoder().decode([String: String].self, from: data)
    }

    @Test func everyAttackIsDiscardedAloneWithinMemoryAndInsideTheCache() async throws {
        let expected = try Self.expectations()
        #expect(expected.count >= 50)
        let escapeExisted = FileManager.default.fileExists(atPath: Self.escapeTarget)
        let scratch = try Scratch()
        let server = try await FixtureServer.start(root: Self.fixtures.path)
        let wrongDigest = "sha256-" + Data(repeating: 0xAB, count: 32).base64EncodedString()

        // id → (url, expected verdict and kind)
        var cases: [String: (url: String?, status: String, reason: String?, kind: String?)] = [:]
        var triggers: [[String: Any]] = []
        for (file, outcome) in expected.sorted(by: { $0.key < $1.key }) {
            let url = server.url("hostile/" + file)
            let data: [String: Any] = file.hasSuffix(".zip")
                ? ["type": "HTML_FULL", "zipped_assets_url": url]
                : ["type": "MODAL", "image_style": "GRAPHIC", "image_url": url]
            triggers.append(inapp(file, data))
            cases[file] = outcome == "ready"
                ? (url, "ready", nil, nil)
                : (url, "discarded", "asset_invalid", outcome)
        }
        let good: [(String, [String: Any], String)] = [
            ("good-png", ["type": "MODAL", "image_url": server.url("assets/img/rgb.png")], "assets/img/rgb.png"),
            ("good-jpeg", ["type": "FULL", "image_url": server.url("assets/img/photo.jpg")], "assets/img/photo.jpg"),
            ("good-gif", ["type": "SLIDEUP", "image_url": server.url("assets/img/banner.gif")], "assets/img/banner.gif"),
            ("good-webp", ["type": "MODAL", "image_url": server.url("assets/img/pixel.webp")], "assets/img/pixel.webp"),
            ("good-zip", ["type": "HTML_FULL", "zipped_assets_url": server.url("assets/html/bundle.zip")], "assets/html/bundle.zip"),
            ("good-html", ["type": "HTML", "asset_urls": [server.url("assets/html/page.html"), server.url("assets/html/page.css")]],
             "assets/html/page.html"),
        ]
        for (id, data, path) in good {
            triggers.append(inapp(id, data))
            cases[id] = (server.url(path), "ready", nil, nil)
        }
        let mismatched = server.url("assets/img/gray.png")
        triggers.append(inapp("integrity-mismatch", ["type": "MODAL", "image_url": mismatched]))
        cases["integrity-mismatch"] = (mismatched, "discarded", "asset_invalid", "integrity_mismatch")
        triggers.append(inapp("unknown-type", ["type": "CAROUSEL", "image_url": server.url("assets/img/rgba.png")]))
        cases["unknown-type"] = (nil, "discarded", "unsupported_message_type", nil)

        let manifest = try scratch.write("manifest.json", try manifestJSON(triggers, integrity: [mismatched: wrongDigest]))
        let work = scratch.url.appendingPathComponent("work")
        let temporary = scratch.url.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        let measured = try await CommandRunner.measuredPrefetch(
            ["run", manifest, "--cache-dir", scratch.path("cache"), "--json"],
            in: work, environment: ["TMPDIR": temporary.path])
        let requests = server.requests()
        try await server.stop()

        let result = measured.result
        #expect(result.status == 1, "\(result.stderr)")
        let report = try result.report()
        #expect(report.messages.count == cases.count)
        for (id, want) in cases.sorted(by: { $0.key < $1.key }) {
            let message = try #require(report.message(id), "no verdict for \(id)")
            #expect(message.status == want.status, "\(id): \(message.verdict) \(message.detail ?? "")")
            #expect(message.reason == want.reason, "\(id): \(message.verdict) \(message.detail ?? "")")
            if let kind = want.kind, let url = want.url {
                #expect(report.asset(url)?.error?.kind == kind, "\(id): \(report.asset(url)?.error?.message ?? "no error")")
                #expect(report.asset(url)?.outcome == "failed", "\(id)")
                #expect(message.detail?.hasPrefix("\(kind): ") == true, "\(id): \(message.detail ?? "")")
            }
            if want.status == "ready" {
                for asset in message.assets { #expect(FileManager.default.fileExists(atPath: asset.path), "\(id)") }
            }
        }
        // Content failures are never retried: one request per URL.
        let gets = Dictionary(grouping: requests.filter { $0.method == "GET" }, by: \.path).mapValues(\.count)
        #expect(gets.values.allSatisfy { $0 == 1 }, "\(gets.filter { $0.value != 1 })")

        // Nothing outside the cache: the scratch folder holds the manifest, the
        // cache and the two empty folders the child ran in; no zip-slip landed.
        #expect(scratch.listing().filter { !$0.hasPrefix("cache/") } == ["cache", "manifest.json", "tmp", "work"])
        #expect(!scratch.listing().contains { $0.contains("evil") })
        #expect(scratch.listing("cache/tmp").isEmpty)
        #expect(FileManager.default.fileExists(atPath: Self.escapeTarget) == escapeExisted)
        // Only the two good archives were unpacked, and they hold no links.
        let trees = scratch.listing("cache/trees").filter { $0.split(separator: "/").count == 2 && !$0.hasSuffix(".sha256sums") }
        #expect(trees.count == 2, "\(trees)")
        for path in scratch.listing("cache/trees") {
            let attributes = try FileManager.default.attributesOfItem(atPath: scratch.path("cache/trees/" + path))
            #expect(attributes[.type] as? FileAttributeType != .typeSymbolicLink, "\(path)")
        }

        #expect(measured.peakResidentBytes > 0)
        // scripts/asan-test.sh: shadow memory and quarantine are ASan's, not ours.
        if ProcessInfo.processInfo.environment["ASSETCACHE_SANITIZER"] == nil {
            #expect(measured.peakResidentBytes < Self.peakMemoryLimit,
                    "peak RSS \(measured.peakResidentBytes / 1024 / 1024) MiB")
        }
        print("hostile run: \(cases.count) messages, peak RSS \(measured.peakResidentBytes / 1024) KiB (ru_maxrss \(measured.rusageMaxRSSBytes / 1024) KiB), \(report.duration_ms) ms")
    }
}
