import ArgumentParser
import AssetCache
import CoreMetrics
import Logging
import Prometheus
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// `run --metrics-file PATH`: after every run — finished, failed or interrupted —
/// the Prometheus text format for node_exporter's textfile collector, replaced
/// atomically. The run's figures come from ``RunMetrics`` through swift-metrics;
/// this adds how the run ended, and every series carries the cache directory,
/// so that several caches on one host (or simulated devices) never collide.
final class MetricsFile {
    static let runs = "prefetch_runs_total"
    static let lastRun = "prefetch_last_run_timestamp_seconds"
    static let lastRunSuccess = "prefetch_last_run_success"
    static let lastRunExitCode = "prefetch_last_run_exit_code"
    static let lastSuccess = "prefetch_last_success_timestamp_seconds"
    static let buildInfo = "prefetch_build_info"
    static let results = ["success", "interrupted", "failure"]

    static let help = RunMetrics.help.merging([
        runs: "Runs by result: success (every message got its verdict), interrupted (a signal or --max-run-time), failure.",
        lastRun: "When the last run ended, in seconds since the epoch.",
        lastRunSuccess: "1 if the last run succeeded: it finished, and exited 0 or 1 (some message discarded).",
        lastRunExitCode: "The last run's exit code.",
        lastSuccess: "When the last successful run ended, in seconds since the epoch; 0 if none is known.",
        buildInfo: "The prefetch version that wrote this file; always 1.",
    ]) { own, _ in own }

    /// A previous file larger than this is not read for carried counters.
    static let previousFileLimit = 1 << 20

    let path: String
    private let registry = PrometheusCollectorRegistry()
    private let factory: DescribedPrometheusFactory
    private let cacheDirectory: String
    private let started = ContinuousClock.now
    private var lastSuccess: Double?
    private var report: PrefetchReport?
    private var stoppedEarly = false

    init(path: String, cacheDirectory: String) {
        self.path = path
        self.cacheDirectory = cacheDirectory
        let commonLabels = [("cache_dir", cacheDirectory)]
        factory = DescribedPrometheusFactory(registry: registry, help: Self.help, commonLabels: commonLabels)
        let text = readSmallFile(path, limit: Self.previousFileLimit).map { String(decoding: $0, as: UTF8.self) } ?? ""
        let previous = PreviousMetrics(text: text, commonLabels: commonLabels, carried: Self.carried, lastSuccessName: Self.lastSuccess)
        for (series, count) in previous.counters {
            Counter(label: series.name, dimensions: series.labels.sorted { $0.key < $1.key }, factory: factory).increment(by: count)
        }
        lastSuccess = previous.lastSuccess
    }

    /// The counters that go on from one run's file to the next.
    static let carried: Set<PreviousMetrics.Series> = Set(
        [RunMetrics.downloadedBytes, RunMetrics.attempts, RunMetrics.connections].map { PreviousMetrics.Series(name: $0, labels: [:]) }
            + results.map { PreviousMetrics.Series(name: runs, labels: ["result": $0]) })

    /// A directory that is not there is a usage error before the run, not a
    /// warning after it.
    static func check(_ path: String) throws {
        var info = stat()
        guard stat(MetricsTextFile.directory(of: path), &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw ValidationError("--metrics-file '\(path)': its directory does not exist; create it (node_exporter's --collector.textfile.directory) first")
        }
        if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            throw ValidationError("--metrics-file '\(path)' is a directory; name a file in it, such as prefetch.prom")
        }
    }

    /// The run got as far as a report; `stoppedEarly`: a signal or --max-run-time ended it.
    func record(_ report: PrefetchReport, stoppedEarly: Bool) {
        self.report = report
        self.stoppedEarly = stoppedEarly
    }

    /// Renders every metric and replaces the file; a failure to write is a
    /// warning, never a change of the run's exit code.
    func write(exitStatus: Int32, logger: Logger) {
        let now = Date().timeIntervalSince1970
        let success = report != nil && !stoppedEarly && [ExitStatus.ok, ExitStatus.someDiscarded, ExitStatus.staleCopies].contains(exitStatus)
        if let report {
            RunMetrics.record(report, factory: factory)
        } else {
            let elapsed = ContinuousClock.now - started
            Gauge(label: RunMetrics.duration, factory: factory)
                .record(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
            if let store = try? CacheStore.openForReading(at: cacheDirectory) {
                RunMetrics.recordCache(bytes: store.usage().bytes, budget: store.readState().budget, factory: factory)
            }
        }
        let result = success ? "success" : stoppedEarly ? "interrupted" : "failure"
        for name in Self.results {
            Counter(label: Self.runs, dimensions: [("result", name)], factory: factory).increment(by: name == result ? 1 : 0)
        }
        if success { lastSuccess = now }
        Gauge(label: Self.lastRun, factory: factory).record(now)
        Gauge(label: Self.lastRunSuccess, factory: factory).record(success ? 1 : 0)
        Gauge(label: Self.lastRunExitCode, factory: factory).record(Int(exitStatus))
        Gauge(label: Self.lastSuccess, factory: factory).record(lastSuccess ?? 0)
        Gauge(label: Self.buildInfo, dimensions: [("version", AssetCacheVersion.current)], factory: factory).record(1)
        do {
            try MetricsTextFile.replace(path, with: Self.sortedFamilies(registry.emitToBuffer()))
        } catch {
            logger.warning("could not write --metrics-file '\(path)': \(error)")
        }
    }

    /// The registry emits families and series in hash order; sorted, one run's
    /// file reads and diffs like the next one's.
    static func sortedFamilies(_ text: [UInt8]) -> [UInt8] {
        var families: [[Substring]] = []
        for line in String(decoding: text, as: UTF8.self).split(separator: "\n") {
            let startsFamily = line.hasPrefix("# HELP ")
                || (line.hasPrefix("# TYPE ") && families.last?.last?.hasPrefix("# HELP ") != true)
            if startsFamily || families.isEmpty {
                families.append([line])
            } else {
                families[families.count - 1].append(line)
            }
        }
        var sorted: [(name: Substring, lines: [Substring])] = families.map { family in
            let header: [Substring] = Array(family.prefix { $0.hasPrefix("#") })
            let samples: [Substring] = family.dropFirst(header.count).sorted()
            let name = (header.first ?? "").dropFirst("# HELP ".count).prefix { $0 != " " }
            return (name, header + samples)
        }
        sorted.sort { $0.name < $1.name }
        var bytes: [UInt8] = []
        for family in sorted {
            for line in family.lines {
                bytes += line.utf8
                bytes.append(UInt8(ascii: "\n"))
            }
        }
        return bytes
    }
}
