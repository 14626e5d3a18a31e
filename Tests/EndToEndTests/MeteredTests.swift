import FixtureServer
import Foundation
import Testing

/// `run --metered` (docs/limits.md#metered-links): on a metered link only
/// session-start and push-click messages' assets and assets of at most
/// --metered-max-asset-bytes are fetched; the other messages are deferred
/// (metered) and an unmetered run fetches them.
@Suite struct MeteredTests {
    /// Over the default 256 KiB cap: `start` (session start) all the same,
    /// `photo` (announced by its Content-Length) and `video` (counted as it
    /// arrives) not; `icon` is under it.
    static let pages = [
        LimitSite.Page(id: "start", bytes: 300_000, urgent: true),
        LimitSite.Page(id: "icon", bytes: 20_000, priority: 2),
        LimitSite.Page(id: "photo", bytes: 300_000, priority: 3),
        LimitSite.Page(id: "video", bytes: 300_000, priority: 1, chunked: true),
    ]

    @Test func aMeteredLinkDefersTheLargeAssetsAndAnUnmeteredRunFetchesThem() async throws {
        let site = try await LimitSite(Self.pages)
        let metrics = site.scratch.path("prefetch.prom")
        let metered = try await site.run(["--metered", "yes", "--metrics-file", metrics])
        #expect(metered.status == 0, "\(metered.stderr)")
        let report = try metered.report()
        #expect(LimitSite.verdicts(report) == ["start": "ready", "icon": "ready", "photo": "deferred:metered", "video": "deferred:metered"])
        #expect(report.asset(site.url("photo"))?.reason == "metered")
        let link = try #require(report.metered)
        #expect(link.value && link.source == "flag" && link.max_asset_bytes == 256 * 1024 && link.deferred_messages == 2)
        // photo stopped at its head; video at the cap, one libcurl write (16 KiB) past it at most.
        #expect(report.totals.downloaded_bytes <= 300_000 + 20_000 + 256 * 1024 + 16_384, "\(report.totals.downloaded_bytes)")
        let ready = try await CommandRunner.prefetch(["ready", "photo", "icon", "--cache-dir", site.cache])
        #expect(ready.stdoutText.hasPrefix("photo\tdeferred\tmetered\nicon\tready\t"), "\(ready.stdoutText)")
        let prometheus = try PrometheusText(String(decoding: try Data(contentsOf: URL(fileURLWithPath: metrics)), as: UTF8.self))
        #expect(prometheus.series("prefetch_messages").contains { $0.labels["status"] == "deferred" && $0.labels["reason"] == "metered" && $0.value == 2 })
        #expect(prometheus.series("prefetch_metered_link").first?.value == 1)

        let unmetered = try await site.run(["--metered", "no"])
        try await site.server.stop()
        #expect(unmetered.status == 0, "\(unmetered.stderr)")
        let later = try unmetered.report()
        #expect(LimitSite.verdicts(later) == ["start": "ready", "icon": "ready", "photo": "ready", "video": "ready"])
        #expect(later.metered.map { !$0.value && $0.source == "flag" && $0.deferred_messages == 0 } == true)
    }

    @Test func aSmallerCapDefersMore() async throws {
        let site = try await LimitSite(Self.pages)
        let result = try await site.run(["--metered", "yes", "--metered-max-asset-bytes", "10K"])
        try await site.server.stop()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(LimitSite.verdicts(try result.report()) == ["start": "ready", "icon": "deferred:metered", "photo": "deferred:metered", "video": "deferred:metered"])
    }

    /// Where NetworkManager cannot say (this machine has none), auto takes
    /// the configuration file's `metered`, even with --metered auto given.
    @Test func autoFallsBackToTheConfiguredValue() async throws {
        let site = try await LimitSite(Self.pages)
        let config = try site.scratch.write("prefetch.conf", "metered = yes\n")
        let configured = try await site.run(["--config", config, "--metered", "auto"])
        let unconfigured = try await site.run(["--metered", "auto"])
        try await site.server.stop()
        #expect(configured.status == 0, "\(configured.stderr)")
        let report = try configured.report()
        let link = try #require(report.metered)
        if link.source == "networkmanager" {
            // A machine whose NetworkManager answers: its word wins over the file's.
            return
        }
        #expect(link.value && link.source == "config")
        #expect(LimitSite.verdicts(report) == ["start": "ready", "icon": "ready", "photo": "deferred:metered", "video": "deferred:metered"])
        #expect(try unconfigured.report().metered.map { !$0.value && $0.source == "default" } == true)
        #expect(LimitSite.verdicts(try unconfigured.report()).values.allSatisfy { $0 == "ready" })
    }

    @Test func offlineSaysNothingOfTheLink() async throws {
        let site = try await LimitSite([LimitSite.Page(id: "icon", bytes: 1_000, urgent: true)])
        #expect(try await site.run(["--metered", "yes"]).status == 0)
        let offline = try await site.run(["--metered", "yes", "--offline"])
        try await site.server.stop()
        #expect(offline.status == 0, "\(offline.stderr)")
        #expect(try offline.report().metered == nil)
    }
}
