import FixtureServer
import Foundation
import Testing

/// `run --metrics-file`: the Prometheus text file of a real run says what the
/// JSON report of the same run says, and every run leaves a whole file.
@Suite struct MetricsFileTests {
    func statusJSON(_ cache: String) async throws -> [String: Any] {
        let status = try await CommandRunner.prefetch(["status", "--cache-dir", cache, "--json"])
        return try #require(try JSONSerialization.jsonObject(with: status.stdout) as? [String: Any])
    }

    func read(_ path: String) throws -> PrometheusText {
        try PrometheusText(String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self))
    }

    /// Each value against the report: messages by status and reason, assets by
    /// outcome and error kind, bytes, attempts, connections, duration, cache.
    func expectMatches(_ metrics: PrometheusText, _ report: Report, sourceLocation: SourceLocation = #_sourceLocation) {
        var messages: [String: Int] = [:]
        for message in report.messages { messages["\(message.status)/\(message.reason ?? "")", default: 0] += 1 }
        for sample in metrics.series("prefetch_messages") {
            let key = "\(sample.labels["status"]!)/\(sample.labels["reason"]!)"
            #expect(sample.value == Double(messages.removeValue(forKey: key) ?? 0), "\(key)", sourceLocation: sourceLocation)
        }
        #expect(messages.isEmpty, "messages without a series: \(messages)", sourceLocation: sourceLocation)
        let outcomes = ["downloaded", "revalidated", "fresh", "cached", "stale", "failed", "skipped", "deferred"]
        #expect(metrics.series("prefetch_assets").count == outcomes.count, sourceLocation: sourceLocation)
        for outcome in outcomes {
            let count = report.assets.count { $0.outcome == outcome }
            #expect(metrics.value("prefetch_assets", ["outcome": outcome]) == Double(count), "\(outcome)", sourceLocation: sourceLocation)
        }
        #expect(metrics.series("prefetch_asset_errors").count == 14, sourceLocation: sourceLocation)
        for sample in metrics.series("prefetch_asset_errors") {
            let count = report.assets.count { $0.error?.kind == sample.labels["kind"] }
            #expect(sample.value == Double(count), "\(sample.labels)", sourceLocation: sourceLocation)
        }
        #expect(metrics.value("prefetch_last_run_duration_seconds") == Double(report.duration_ms) / 1000, sourceLocation: sourceLocation)
    }

    @Test func theFileOfARealRunSaysWhatItsReportSays() async throws {
        let scratch = try Scratch()
        let server = try await FixtureServer.start(root: Package.assets.path)
        let manifest = try scratch.write("m.json", try manifestJSON([
            inapp("ready", ["type": "MODAL", "image_url": server.url("img/rgb.png")]),
            inapp("bundle", ["type": "HTML_FULL", "zipped_assets_url": server.url("html/bundle.zip")]),
            inapp("missing", ["type": "MODAL", "image_url": server.url("img/missing.png")]),
            inapp("corrupt", ["type": "MODAL", "image_url": server.url("img/corrupt-crc.png")]),
            inapp("no-image", ["type": "FULL"]),
            inapp("later", ["type": "MODAL", "image_url": server.url("img/gray.png")], prefetch: false),
        ]))
        let cache = scratch.path("cache")
        let file = scratch.path("textfile/prefetch.prom")
        try FileManager.default.createDirectory(atPath: scratch.path("textfile"), withIntermediateDirectories: true)
        let before = Date().timeIntervalSince1970

        let first = try await CommandRunner.prefetch(["run", manifest, "--cache-dir", cache, "--json", "--retries", "0", "--metrics-file", file])
        let after = Date().timeIntervalSince1970
        #expect(first.status == 1, "\(first.stderr)")
        let report = try first.report()
        #expect(report.totals.ready == 2 && report.totals.discarded == 3 && report.totals.deferred == 1)
        // Issue 36: a message fetched at display time says so.
        #expect(report.message("later")?.verdict == "deferred:not_prefetched")
        let metrics = try read(file)
        expectMatches(metrics, report)
        #expect(metrics.value("prefetch_downloaded_bytes_total") == Double(report.totals.downloaded_bytes))
        #expect(metrics.value("prefetch_attempts_total") == Double(report.assets.reduce(0) { $0 + $1.attempts }))
        #expect(report.totals.connections >= 1)
        #expect(metrics.value("prefetch_connections_total") == Double(report.totals.connections))
        let status = try await statusJSON(cache)
        #expect(metrics.value("prefetch_cache_bytes") == (status["bytes"] as? Double))
        #expect(metrics.value("prefetch_cache_budget_bytes") == (status["budget"] as? Double))
        #expect(metrics.value("prefetch_last_run_exit_code") == 1)
        #expect(metrics.value("prefetch_last_run_success") == 1)
        #expect(metrics.value("prefetch_runs_total", ["result": "success"]) == 1)
        #expect(metrics.value("prefetch_runs_total", ["result": "failure"]) == 0)
        let ended = try #require(metrics.value("prefetch_last_run_timestamp_seconds"))
        #expect(ended >= before.rounded(.down) && ended <= after.rounded(.up))
        #expect(metrics.value("prefetch_last_success_timestamp_seconds") == ended)
        let version = try await CommandRunner.prefetch(["--version"]).stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(metrics.value("prefetch_build_info", ["version": version]) == 1)
        // Conventions: every family has HELP and TYPE; counters, and only they, end in _total.
        for name in Set(metrics.samples.map(\.name)) {
            #expect(metrics.help[name]?.isEmpty == false, "\(name)")
            #expect(metrics.types[name] == (name.hasSuffix("_total") ? "counter" : "gauge"), "\(name)")
        }
        #expect(metrics.samples.allSatisfy { $0.labels["cache_dir"] == report.cache_dir })
        // Replaced by rename: nothing but the file itself is left in the collector's directory.
        #expect(scratch.listing("textfile") == ["prefetch.prom"])

        // The next run's counters go on from this file's.
        let second = try await CommandRunner.prefetch(["run", manifest, "--cache-dir", cache, "--json", "--retries", "0", "--metrics-file", file])
        try await server.stop()
        let again = try second.report()
        let next = try read(file)
        expectMatches(next, again)
        #expect(next.value("prefetch_downloaded_bytes_total") == Double(report.totals.downloaded_bytes + again.totals.downloaded_bytes))
        #expect(next.value("prefetch_attempts_total") == Double((report.assets + again.assets).reduce(0) { $0 + $1.attempts }))
        #expect(next.value("prefetch_connections_total") == Double(report.totals.connections + again.totals.connections))
        #expect(next.value("prefetch_runs_total", ["result": "success"]) == 2)
    }

    @Test func aRunStoppedBySIGTERMStillLeavesAWholeFile() async throws {
        let scratch = try Scratch()
        let names = try writeStyleSheets(2, in: scratch.path("www"))
        let big = Data(repeating: 7, count: 4 << 20)
        try big.write(to: URL(fileURLWithPath: scratch.path("www/big.bin")))
        let server = try await FixtureServer.start(root: scratch.path("www"))
        let quick = inapp("quick", ["type": "HTML", "asset_urls": [server.url(names[0])]])
        let cache = scratch.path("cache")
        let file = scratch.path("prefetch.prom")

        let succeeded = try await CommandRunner.prefetch(
            ["run", try scratch.write("quick.json", try manifestJSON([quick])), "--cache-dir", cache, "--metrics-file", file])
        #expect(succeeded.status == 0, "\(succeeded.stderr)")
        let lastSuccess = try #require(try read(file).value("prefetch_last_success_timestamp_seconds"))

        let manifest = try scratch.write("m.json", try manifestJSON([
            inapp("next", ["type": "HTML", "asset_urls": [server.url(names[1])]]),
            inapp("slow", ["type": "HTML", "asset_urls": [server.url("big.bin?stall_after=1048576")]]),
        ]))
        let child = try RunningCommand(["run", manifest, "--cache-dir", cache, "--json", "--log-level", "debug", "--metrics-file", file])
        // Served is not committed: the run logs each asset once it is.
        #expect(await child.stderrContains("\(names[1]): downloaded"))
        child.signal(SIGTERM)
        let result = await child.wait()
        try await server.stop()
        #expect(result.status == 143, "\(result.stderr)")

        let metrics = try read(file)
        expectMatches(metrics, try result.report())
        #expect(metrics.value("prefetch_last_run_exit_code") == 143)
        #expect(metrics.value("prefetch_last_run_success") == 0)
        #expect(metrics.value("prefetch_runs_total", ["result": "interrupted"]) == 1)
        #expect(metrics.value("prefetch_runs_total", ["result": "success"]) == 1)
        #expect(metrics.value("prefetch_last_success_timestamp_seconds") == lastSuccess)
        #expect(scratch.listing().filter { $0.hasSuffix(".tmp") }.isEmpty)
    }

    @Test func aRunThatFailsBeforeItsReportWritesHowItEnded() async throws {
        let scratch = try Scratch()
        let manifest = try scratch.write("m.json", #"{"triggers": [{"id": "a", "type": "inapp", "data": {"type": "MODAL", "image_url": "ftp://x/y.png"}}]}"#)
        let file = scratch.path("prefetch.prom")

        let result = try await CommandRunner.prefetch(["run", manifest, "--cache-dir", scratch.path("cache"), "--metrics-file", file])
        #expect(result.status == 2)
        let metrics = try read(file)
        #expect(metrics.value("prefetch_last_run_exit_code") == 2)
        #expect(metrics.value("prefetch_runs_total", ["result": "failure"]) == 1)
        #expect(metrics.value("prefetch_last_success_timestamp_seconds") == 0)
        #expect(metrics.series("prefetch_messages").isEmpty)
        #expect(metrics.value("prefetch_last_run_duration_seconds") != nil)

        let nowhere = try await CommandRunner.prefetch(["run", manifest, "--metrics-file", scratch.path("no/such/dir/x.prom")])
        #expect(nowhere.status == 2)
        #expect(nowhere.stderr.contains("--metrics-file '\(scratch.path("no/such/dir/x.prom"))': its directory does not exist"))
    }
}
