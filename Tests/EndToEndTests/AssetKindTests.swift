import Crypto
import FixtureServer
import Foundation
import Testing

/// Issue 26, item 6, through the binary: one URL used as an image by one message
/// and as a ZIP by another is fetched once, but its bytes are checked as each
/// kind, and each message is judged by the checks of the kind it uses — in
/// either order of the manifest, by `run` and by a `plan` after it.
@Suite struct AssetKindTests {
    /// A fixture served at one URL that both messages use.
    struct Fixture: Sendable, CustomStringConvertible {
        var path: String
        /// The kind whose checks its bytes pass; they fail the other's.
        var validAs: String
        /// The error kind of the other kind's check.
        var otherError: String
        var description: String { path }

        static let png = Fixture(path: "img/rgb.png", validAs: "image", otherError: "invalid_archive")
        static let zip = Fixture(path: "html/bundle.zip", validAs: "archive", otherError: "invalid_image")
    }

    enum Order: String, CaseIterable, Sendable {
        case imageFirst, zipFirst
    }

    static func triggers(_ url: String, _ order: Order) -> [[String: Any]] {
        let image = inapp("as-image", ["type": "MODAL", "image_url": url])
        let zip = inapp("as-zip", ["type": "HTML_FULL", "zipped_assets_url": url])
        return order == .imageFirst ? [image, zip] : [zip, image]
    }

    static func sha256(of fixture: String) throws -> String {
        let bytes = try Data(contentsOf: Package.assets.appendingPathComponent(fixture))
        return SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }

    /// What a report says of each message, with the cache's own prefix left
    /// out of paths, so that two caches' reports compare.
    static func verdicts(_ report: Report) -> [String: String] {
        var verdicts: [String: String] = [:]
        for message in report.messages {
            let assets = message.assets.map { "\($0.kind) \($0.url) \($0.path.replacingOccurrences(of: report.cache_dir, with: "CACHE"))" }
            verdicts[message.id] = ([message.verdict, message.detail ?? "-"] + assets).joined(separator: " | ")
        }
        return verdicts
    }

    /// What a report says of each use of `url`: kind, outcome, error kind, path.
    static func uses(of url: String, in report: Report) -> [String] {
        report.assets.filter { $0.url == url }.map { asset in
            let path = asset.path?.replacingOccurrences(of: report.cache_dir, with: "CACHE") ?? "-"
            return "\(asset.kind) \(asset.outcome) \(asset.error?.kind ?? "-") \(path)"
        }
    }

    @Test(arguments: [Fixture.png, Fixture.zip])
    func verdictsAreTheKindsOwnInEitherOrder(_ fixture: Fixture) async throws {
        let server = try await FixtureServer.start(root: Package.assets.path)
        let url = server.url(fixture.path)
        let sha = try Self.sha256(of: fixture.path)
        let shard = "\(sha.prefix(2))/\(sha)"
        // The copy a message of each kind gets: the object, or the unpacked ZIP.
        let readyPath = fixture.validAs == "image" ? "CACHE/objects/\(shard)" : "CACHE/trees/\(shard)"
        let readyMessage = fixture.validAs == "image" ? "as-image" : "as-zip"
        let otherMessage = fixture.validAs == "image" ? "as-zip" : "as-image"
        let (otherKind, otherArticle, validArticle) = fixture.validAs == "image"
            ? ("archive", "a ZIP", "an image") : ("image", "an image", "a ZIP")

        var runs: [Order: [String: String]] = [:]
        var plans: [Order: [String: String]] = [:]
        for order in Order.allCases {
            let scratch = try Scratch()
            let manifest = try scratch.write("manifest.json", try manifestJSON(Self.triggers(url, order)))
            let cache = scratch.path("cache")
            let metricsFile = scratch.path("prefetch.prom")
            let before = server.requests().count
            let run = try await CommandRunner.prefetch(
                ["run", manifest, "--cache-dir", cache, "--json", "--metrics-file", metricsFile], in: scratch.url)
            let fetched = server.requests()[before...].filter { $0.method == "GET" }
            let plan = try await CommandRunner.prefetch(["plan", manifest, "--cache-dir", cache, "--json"], in: scratch.url)
            let (ran, planned) = (try run.report(), try plan.report())
            #expect(run.status == 1, "\(order): \(run.stderr)")
            #expect(plan.status == 1, "\(order): \(plan.stderr)")
            #expect(ran.cache_dir == cache && planned.cache_dir == cache)
            // Fetched once for both messages.
            #expect(fetched.count == 1, "\(order): \(fetched.map(\.target))")

            let ready = try #require(ran.message(readyMessage))
            #expect(ready.verdict == "ready", "\(order): \(ready.detail ?? "")")
            #expect(ready.assets.map { "\($0.kind) \($0.url) \($0.path)" } == ["\(fixture.validAs) \(url) \(cache + readyPath.dropFirst(5))"])
            let other = try #require(ran.message(otherMessage))
            #expect(other.verdict == "discarded:asset_invalid", "\(order)")
            #expect(other.detail?.hasPrefix("\(fixture.otherError): ") == true, "\(order): \(other.detail ?? "no detail")")
            #expect(other.assets.isEmpty)
            // Both verdicts in the report, in the same order whatever the manifest's.
            #expect(Self.uses(of: url, in: ran) == [
                fixture.validAs == "image" ? "image downloaded - \(readyPath)" : "image failed invalid_image -",
                fixture.validAs == "image" ? "archive failed invalid_archive -" : "archive downloaded - \(readyPath)",
            ], "\(order)")
            #expect(ran.assets.filter { $0.url == url }.allSatisfy { $0.attempts == 1 })
            #expect(ran.assets.first { $0.url == url && $0.kind == fixture.validAs }?.sha256 == sha)
            #expect(ran.totals.assets == 2 && ran.totals.ready == 1 && ran.totals.discarded == 1)
            // Metrics count the entries by outcome, and the URL's one request once.
            let metrics = try PrometheusText(String(decoding: try Data(contentsOf: URL(fileURLWithPath: metricsFile)), as: UTF8.self))
            #expect(metrics.value("prefetch_attempts_total") == 1)
            #expect(metrics.value("prefetch_assets", ["outcome": "downloaded"]) == 1)
            #expect(metrics.value("prefetch_assets", ["outcome": "failed"]) == 1)

            // `plan` finds the copy for its kind only: the other kind's check
            // failed, so for it the cache has nothing.
            let plannedReady = try #require(planned.message(readyMessage))
            #expect(plannedReady.verdict == "ready")
            #expect(plannedReady.assets.map(\.path) == ready.assets.map(\.path))
            let plannedOther = try #require(planned.message(otherMessage))
            #expect(plannedOther.verdict == "discarded:asset_download_failed")
            #expect(plannedOther.detail == "offline_miss: \(url) is not in the cache as \(otherArticle), only as \(validArticle)")
            #expect(Self.uses(of: url, in: planned) == (fixture.validAs == "image"
                ? ["image cached - \(readyPath)", "archive failed offline_miss -"]
                : ["image failed offline_miss -", "archive cached - \(readyPath)"]))
            #expect(!Self.uses(of: url, in: planned).contains { $0.hasPrefix(otherKind) && $0.contains("CACHE/") })

            runs[order] = Self.verdicts(ran)
            plans[order] = Self.verdicts(planned)
        }
        try await server.stop()
        #expect(runs[.imageFirst] == runs[.zipFirst])
        #expect(plans[.imageFirst] == plans[.zipFirst])
    }

    /// A copy checked as one kind by an earlier run is not taken for another
    /// kind by a later one, however fresh: the later run fetches and checks it
    /// as the kind it needs, and leaves the first kind's copy as it was.
    @Test(arguments: [Fixture.png, Fixture.zip])
    func aFreshCopyOfOneKindIsNotAnotherKind(_ fixture: Fixture) async throws {
        let scratch = try Scratch()
        let server = try await FixtureServer.start(root: Package.assets.path)
        let url = server.url("\(fixture.path)?cache_control=max-age%3D3600")
        let cache = scratch.path("cache")
        let valid = fixture.validAs == "image"
            ? inapp("valid", ["type": "MODAL", "image_url": url])
            : inapp("valid", ["type": "HTML_FULL", "zipped_assets_url": url])
        let invalid = fixture.validAs == "image"
            ? inapp("invalid", ["type": "HTML_FULL", "zipped_assets_url": url])
            : inapp("invalid", ["type": "MODAL", "image_url": url])
        let first = try scratch.write("first.json", try manifestJSON([valid]))
        let second = try scratch.write("second.json", try manifestJSON([invalid]))

        let firstRun = try await CommandRunner.prefetch(["run", first, "--cache-dir", cache, "--json"], in: scratch.url)
        #expect(firstRun.status == 0, "\(firstRun.stderr)")
        let requestsBefore = server.requests().count
        let secondRun = try await CommandRunner.prefetch(["run", second, "--cache-dir", cache, "--json"], in: scratch.url)
        let secondRequests = server.requests().count - requestsBefore
        let replan = try await CommandRunner.prefetch(["plan", first, "--cache-dir", cache, "--json"], in: scratch.url)
        try await server.stop()

        let report = try secondRun.report()
        #expect(secondRun.status == 1)
        #expect(report.message("invalid")?.verdict == "discarded:asset_invalid")
        #expect(report.message("invalid")?.detail?.hasPrefix("\(fixture.otherError): ") == true, "\(report.message("invalid")?.detail ?? "")")
        #expect(report.assets.map(\.outcome) == ["failed"])
        #expect(secondRequests == 1)
        // The first kind's copy is untouched: still ready, with no request.
        let planned = try replan.report()
        let firstPaths = try firstRun.report().message("valid")?.assets.map(\.path)
        #expect(replan.status == 0, "\(replan.stderr)")
        #expect(firstPaths?.count == 1)
        #expect(planned.message("valid")?.assets.map(\.path) == firstPaths)
    }

    /// Bytes that pass the checks of two kinds serve both, each from its own
    /// file (a ZIP's tree for the bundle, its object for the HTML message's
    /// file); one ref records both kinds, and while it is fresh neither asks
    /// the server again.
    @Test func aZipUsedAsABundleAndAsAFileServesBoth() async throws {
        let scratch = try Scratch()
        let server = try await FixtureServer.start(root: Package.assets.path)
        let url = server.url("html/bundle.zip?cache_control=max-age%3D3600")
        let sha = try Self.sha256(of: "html/bundle.zip")
        let cache = scratch.path("cache")
        let manifest = try scratch.write("manifest.json", try manifestJSON([
            inapp("page", ["type": "HTML", "asset_urls": [url]]),
            inapp("bundle", ["type": "HTML_FULL", "zipped_assets_url": url]),
        ]))

        let first = try await CommandRunner.prefetch(["run", manifest, "--cache-dir", cache, "--json"], in: scratch.url)
        let requestsAfterFirst = server.requests().count
        let second = try await CommandRunner.prefetch(["run", manifest, "--cache-dir", cache, "--json"], in: scratch.url)
        let requestsAfterSecond = server.requests().count
        let verify = try await CommandRunner.prefetch(["verify", "--cache-dir", cache], in: scratch.url)
        try await server.stop()

        #expect(first.status == 0, "\(first.stderr)")
        #expect(second.status == 0, "\(second.stderr)")
        #expect(requestsAfterFirst == 1)
        #expect(requestsAfterSecond == requestsAfterFirst)
        let objectPath = "\(cache)/objects/\(sha.prefix(2))/\(sha)"
        let treePath = "\(cache)/trees/\(sha.prefix(2))/\(sha)"
        let reports = [try first.report(), try second.report()]
        for report in reports {
            #expect(report.message("page")?.assets.map(\.path) == [objectPath])
            #expect(report.message("bundle")?.assets.map(\.path) == [treePath])
        }
        #expect(reports[1].assets.map { "\($0.kind) \($0.outcome)" } == ["archive fresh", "file fresh"])
        #expect(FileManager.default.fileExists(atPath: "\(treePath)/index.html"))

        let refs = try FileManager.default.contentsOfDirectory(atPath: "\(cache)/refs")
        #expect(refs.count == 1)
        let ref = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(cache)/refs/\(refs[0])"))) as? [String: Any]
        #expect(ref?["kind"] as? String == "archive")
        #expect(ref?["kinds"] as? [String] == ["archive", "file"])
        #expect(verify.status == 0, "\(verify.stdoutText)\(verify.stderr)")
    }
}
