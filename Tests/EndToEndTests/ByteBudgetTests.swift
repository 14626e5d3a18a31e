import FixtureServer
import Foundation
import Testing

/// `run --max-download-bytes` (docs/limits.md#byte-budget): assets claim the
/// budget session-start first, then by priority; one that does not fit is not
/// fetched, its message deferred (byte_budget), and a later run fetches it.
@Suite struct ByteBudgetTests {
    /// The session-start message comes first though its priority is lowest;
    /// `mid` does not fit in what `start` and `high` leave, `low` still does.
    static let pages = [
        LimitSite.Page(id: "start", bytes: 40_000, priority: 0, urgent: true),
        LimitSite.Page(id: "high", bytes: 40_000, priority: 3),
        LimitSite.Page(id: "mid", bytes: 40_000, priority: 2),
        LimitSite.Page(id: "low", bytes: 10_000, priority: 1),
    ]

    @Test func whatDoesNotFitIsDeferredInPlanOrderAndALaterRunFetchesIt() async throws {
        let site = try await LimitSite(Self.pages)
        let metrics = site.scratch.path("prefetch.prom")
        let first = try await site.run(["--max-download-bytes", "90000", "--metrics-file", metrics])
        let sent = site.server.requests().reduce(0) { $0 + $1.bodyBytes }
        #expect(first.status == 0, "\(first.stderr)")
        let report = try first.report()
        #expect(LimitSite.verdicts(report) == ["start": "ready", "high": "ready", "mid": "deferred:byte_budget", "low": "ready"])
        #expect(report.asset(site.url("mid"))?.outcome == "deferred")
        #expect(report.asset(site.url("mid"))?.reason == "byte_budget")
        let budget = try #require(report.budget)
        #expect(budget.max_download_bytes == 90_000)
        #expect(budget.deferred_messages == 1)
        // Stopped at its response head: not one of its body bytes was received.
        #expect(budget.downloaded_bytes == 90_000)
        #expect(report.totals.downloaded_bytes == 90_000)
        // What the server wrote to its sockets: the budget, not a byte more. A
        // HEAD asked each size first, so `mid` was never asked for its body (a
        // body refused at its head would have crossed the link already).
        #expect(sent == 90_000, "\(sent)")
        let asked = site.server.requests().filter { $0.path.hasSuffix("mid.bin") }.map { "\($0.method)" }
        #expect(asked == ["HEAD"])

        let ready = try await CommandRunner.prefetch(["ready", "mid", "--cache-dir", site.cache])
        #expect(ready.status == 1)
        #expect(ready.stdoutText == "mid\tdeferred\tbyte_budget\n")
        let prometheus = try PrometheusText(String(decoding: try Data(contentsOf: URL(fileURLWithPath: metrics)), as: UTF8.self))
        #expect(prometheus.series("prefetch_messages").contains { $0.labels["status"] == "deferred" && $0.labels["reason"] == "byte_budget" && $0.value == 1 })
        #expect(prometheus.series("prefetch_max_download_bytes").first?.value == 90_000)

        site.server.resetLog()
        let second = try await site.run([])
        try await site.server.stop()
        #expect(second.status == 0, "\(second.stderr)")
        let later = try second.report()
        #expect(LimitSite.verdicts(later) == ["start": "ready", "high": "ready", "mid": "ready", "low": "ready"])
        #expect(later.asset(site.url("mid"))?.outcome == "downloaded")
        #expect(later.budget == nil)
    }

    /// Without a Content-Length the bytes are counted as they arrive: the
    /// transfer stops at the budget, and the next run resumes it.
    @Test func aBodyOfUnknownSizeStopsAtTheBudgetAndIsResumed() async throws {
        let site = try await LimitSite([LimitSite.Page(id: "big", bytes: 200_000, priority: 1, chunked: true)])
        let first = try await site.run(["--max-download-bytes", "50000"])
        #expect(first.status == 0, "\(first.stderr)")
        let report = try first.report()
        #expect(LimitSite.verdicts(report) == ["big": "deferred:byte_budget"])
        // One write callback of libcurl (CURL_MAX_WRITE_SIZE, 16 KiB) at most past the budget.
        #expect(report.totals.downloaded_bytes <= 50_000 + 16_384, "\(report.totals.downloaded_bytes)")

        site.server.resetLog()
        let second = try await site.run([])
        let requests = site.server.requests()
        try await site.server.stop()
        #expect(second.status == 0, "\(second.stderr)")
        #expect(LimitSite.verdicts(try second.report()) == ["big": "ready"])
        let range = try #require(requests.first?.headers["range"])
        let kept = try #require(Int(range.dropFirst("bytes=".count).dropLast()))
        #expect(kept > 0 && kept <= 50_000 + 16_384)
        #expect(try second.report().totals.downloaded_bytes == 200_000 - kept)
        let path = try #require(try second.report().message("big")?.assets.first?.path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(contentsOf: URL(fileURLWithPath: site.scratch.path("www/big.bin"))))
    }

    /// A revalidation claims the size its copy had; a 304 brings no body and
    /// gives it back. A copy that cannot be revalidated stays in use as it is.
    @Test func aRevalidationClaimsTheCopysSizeAndA304GivesItBack() async throws {
        let site = try await LimitSite([
            LimitSite.Page(id: "one", bytes: 30_000, priority: 2), LimitSite.Page(id: "two", bytes: 30_000, priority: 1),
        ])
        #expect(try await site.run([]).status == 0)

        site.server.resetLog()
        let enough = try await site.run(["--max-download-bytes", "30000"])
        let revalidations = site.server.requests()
        #expect(enough.status == 0, "\(enough.stderr)")
        let report = try enough.report()
        #expect(LimitSite.verdicts(report) == ["one": "ready", "two": "ready"])
        #expect(report.assets.map(\.outcome) == ["revalidated", "revalidated"])
        #expect(revalidations.map(\.status) == [304, 304])
        #expect(report.budget?.downloaded_bytes == 0)

        site.server.resetLog()
        let tooLittle = try await site.run(["--max-download-bytes", "1"])
        let none = site.server.requests()
        try await site.server.stop()
        #expect(tooLittle.status == 0, "\(tooLittle.stderr)")
        let kept = try tooLittle.report()
        #expect(LimitSite.verdicts(kept) == ["one": "ready", "two": "ready"])
        #expect(kept.assets.map(\.outcome) == ["cached", "cached"])
        #expect(none.isEmpty)
    }
}
