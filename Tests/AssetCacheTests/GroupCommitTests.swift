@testable import AssetCache
import FixtureServer
import Foundation
import Testing

/// The group commit: assets made durable in batches, in the order a power cut
/// needs (checked step by step with ``DurabilityOrder``, since LazyFS cannot see
/// a missing directory fsync), every ref flushed before the run reports, and
/// session-start assets never waiting for a batch.
@Suite struct GroupCommitTests {
    static let assets = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("fixtures/assets").path

    /// PNGs (two URLs with the same bytes among them), ZIPs (two with the same
    /// bytes), a `no-store` image and one session-start image; `query` goes on
    /// every URL but the `no-store` one (and, without `queryOnUrgent`, the
    /// session-start one).
    func manifest(_ server: FixtureServer, query: String? = nil, queryOnUrgent: Bool = true) throws -> Manifest {
        func url(_ path: String) -> String {
            guard let query else { return server.url(path) }
            return server.url(path + (path.contains("?") ? "&" : "?") + query)
        }
        let images = ["rgb.png", "rgba.png", "gray.png", "palette.png", "rgb16.png", "gray-alpha.png", "interlaced.png", "rgb-copy.png"]
        var triggers = images.enumerated().map { index, name in
            message("image-\(index)", #""type": "MODAL", "image_url": "\#(url("img/\(name)"))""#)
        }
        triggers += ["bundle.zip", "bundle-stored.zip", "bundle.zip?copy=1"].enumerated().map { index, name in
            message("zip-\(index)", #""type": "HTML_FULL", "zipped_assets_url": "\#(url("html/\(name)"))""#)
        }
        triggers.append(message("no-store", #""type": "MODAL", "image_url": "\#(server.url("img/rgb.png?cache_control=no-store"))""#))
        let opener = queryOnUrgent ? url("img/photo.jpg") : server.url("img/photo.jpg")
        triggers.append(message("opener", #""type": "MODAL", "image_url": "\#(opener)""#, urgent: true))
        return try Manifest.decode(Data(#"{"triggers": [\#(triggers.joined(separator: ","))]}"#.utf8))
    }

    func message(_ id: String, _ data: String, urgent: Bool = false) -> String {
        let trigger = urgent ? #"{"type": "open"}"# : #"{"type": "custom_event", "data": {"event_name": "e"}}"#
        return #"{"id": "\#(id)", "type": "inapp", "trigger_condition": [\#(trigger)], "data": {\#(data)}}"#
    }

    func run(_ manifest: Manifest, cache: String, configure: (inout PrefetchOptions) -> Void = { _ in })
        async throws -> (PrefetchReport, [DurabilityStep]) {
        let steps = Collected<DurabilityStep>()
        var options = PrefetchOptions()
        options.durabilityObserver = { steps.append($0) }
        configure(&options)
        // wait: under load a finished run's store was seen still alive for a
        // moment after `run` returned (twice in CI, not found yet; the closing
        // note of issue 27 says so): the second run of a test waits for it.
        let store = try CacheStore.openForWriting(at: cache, wait: 10)
        let report = try await Prefetcher(store: store, options: options).run(manifest)
        return (report, steps.values)
    }

    /// One cold run of ``manifest(_:query:)`` into a new cache, batches flushed
    /// with syncfs; `check` sees the report, the steps and the cache.
    func coldRun(query: String? = nil, queryOnUrgent: Bool = true, configure: (inout PrefetchOptions) -> Void,
                 check: (PrefetchReport, [DurabilityStep], String) throws -> Void) async throws {
        let server = try await FixtureServer.start(root: Self.assets)
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("group-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let (report, steps) = try await run(try manifest(server, query: query, queryOnUrgent: queryOnUrgent), cache: cache) {
            $0.flushMethod = .filesystem
            configure(&$0)
        }
        try await server.stop()
        try check(report, steps, cache)
        #expect(DurabilityOrder(steps: steps, root: cache).violations() == [])
    }

    @Test(arguments: [FlushMethod.filesystem, .perFile])
    func aColdRunAndARevalidatingOneKeepTheOrderAPowerCutNeeds(method: FlushMethod) async throws {
        let server = try await FixtureServer.start(root: Self.assets)
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("group-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: cache) }

        let (cold, coldSteps) = try await run(try manifest(server, query: "cache_control=max-age=60"), cache: cache) {
            $0.flushMethod = method
        }
        #expect(cold.totals.ready == 13, "\(cold.assets.compactMap(\.failure))")
        #expect(DurabilityOrder(steps: coldSteps, root: cache).violations() == [])
        #expect(coldSteps.contains { $0.destination?.hasPrefix("\(cache)/trees/") == true })

        // An hour later every copy is stale: 304s. Each brings only a new
        // lifetime, which state.json keeps in one write at the run's end: no
        // ref is rewritten (docs/cache-format.md#what-a-run-writes).
        let (warm, warmSteps) = try await run(try manifest(server, query: "cache_control=max-age=60"), cache: cache) {
            $0.flushMethod = method
            $0.now = Date().timeIntervalSince1970 + 3600
        }
        try await server.stop()
        #expect(warm.totals.ready == 13)
        #expect(warm.assets.filter { $0.outcome == .revalidated }.count == 12)
        #expect(!warmSteps.contains { $0.destination?.hasPrefix("\(cache)/refs/") == true })
        #expect(DurabilityOrder(steps: warmSteps, root: cache).violations() == [])
        let store = try CacheStore.openForWriting(at: cache)
        #expect(store.readState().revalidated.count == 12)
        #expect(store.verify() == [])
    }

    @Test func withAWindowLongerThanTheRunEveryAssetSharesOneBatch() async throws {
        try await coldRun { $0.commitWindow = .seconds(3600) } check: { report, steps, cache in
            #expect(report.totals.ready == 13)
            // The batch closed when the last asset joined it, not after an hour: one
            // flush for the data, one for the names, then one of refs/ at the end;
            // and the same two for the session-start asset's own batch.
            #expect(steps.filter { $0 == .syncedFilesystem }.count == 4)
            #expect(steps.last == .syncedDirectory("\(cache)/refs"))
        }
    }

    /// With three assets in progress at a time, nothing more starts once all three
    /// wait for their batch: it must close then, not after the hour. The limit
    /// tells a batch that waits for its hour from one that closed; ten minutes,
    /// because a machine running two suites at once took over one for the run.
    @Test(.timeLimit(.minutes(10)))
    func aWindowOfAssetsInProgressFullOfWaitingOnesClosesTheBatch() async throws {
        try await coldRun {
            $0.commitWindow = .seconds(3600)
            $0.pipelineWindow = 3
        } check: { report, steps, _ in
            #expect(report.totals.ready == 13)
            #expect(steps.filter { $0 == .syncedFilesystem }.count > 2)
        }
    }

    @Test func aBatchClosesAtItsLimit() async throws {
        try await coldRun {
            $0.commitWindow = .seconds(3600)
            $0.commitBatchLimit = 1
        } check: { report, steps, _ in
            #expect(report.totals.ready == 13)
            // Thirteen downloads, the session-start one in a lane of its own:
            // thirteen batches of one, two flushes each.
            #expect(steps.filter { $0 == .syncedFilesystem }.count == 26)
        }
    }

    @Test func aSessionStartAssetIsCommittedAloneWithoutWaitingForTheBatch() async throws {
        // Every other asset arrives 2 s late (300 ms was too little for a loaded
        // CI machine to decode and commit the session-start one first): the
        // session-start one, on time, must not wait for them.
        try await coldRun(query: "delay_ms=2000", queryOnUrgent: false) {
            $0.commitWindow = .seconds(3600)
            $0.urgentHeadStart = .zero
        } check: { report, steps, cache in
            #expect(report.totals.ready == 13)
            let opener = try #require(report.assets.first { $0.url.string.contains("photo.jpg") })
            let refPath = try #require(try CacheStore.openForReading(at: cache)).refPath(for: opener.url)
            let ref = try #require(steps.firstIndex { $0.destination == refPath })
            let sha256 = try #require(opener.sha256)
            // Published in a batch of its own — its data flushed, its object
            // renamed, the name flushed — before anything of the other batch, which
            // waits for every other asset, was renamed into place.
            let before = steps[..<ref]
            #expect(before.filter { $0 == .syncedFilesystem }.count == 2)
            #expect(before.compactMap(\.destination) == ["\(cache)/objects/\(sha256.prefix(2))/\(sha256)"])
        }
    }

    /// The check above must be able to fail: each rule broken once.
    @Test func theOrderCheckCatchesEachMissingFlush() {
        let root = "/c"
        let object = "/c/objects/ab/abc"
        let named: (String) -> [String] = { _ in [object] }
        let good: [DurabilityStep] = [
            .syncedFile("/c/tmp/download"), .syncedFile("/c/tmp/ref"),
            .renamed(from: "/c/tmp/download", to: object),
            .syncedDirectory("/c/objects/ab"), .syncedDirectory("/c/objects"),
            .renamed(from: "/c/tmp/ref", to: "/c/refs/r.json"),
            .syncedDirectory("/c/refs"),
        ]
        func check(_ steps: [DurabilityStep]) -> [String] {
            DurabilityOrder(steps: steps, root: root, named: named, treeFiles: { _ in [] }).violations()
        }
        #expect(check(good) == [])
        #expect(check(good.filter { $0 != .syncedFile("/c/tmp/download") }) == ["object /c/objects/ab/abc renamed before its data was flushed"])
        #expect(check(good.filter { $0 != .syncedDirectory("/c/objects/ab") })
            == ["ref /c/refs/r.json published before the name /c/objects/ab/abc was flushed (no fsync of /c/objects/ab)"])
        #expect(check(good.filter { $0 != .syncedDirectory("/c/objects") })
            == ["ref /c/refs/r.json published before the shard /c/objects/ab was flushed in /c/objects"])
        #expect(check(good.filter { $0 != .syncedFile("/c/tmp/ref") }) == ["ref /c/refs/r.json published before its bytes were flushed"])
        #expect(check(good.dropLast()) == ["the run ended with published refs not flushed"])
        // A syncfs after the rename is too late for the ref it is not before.
        #expect(check([.syncedFilesystem, .renamed(from: "/c/tmp/download", to: object), .renamed(from: "/c/tmp/ref", to: "/c/refs/r.json"), .syncedFilesystem])
            .contains("ref /c/refs/r.json published before the name /c/objects/ab/abc was flushed (no fsync of /c/objects/ab)"))
    }
}
