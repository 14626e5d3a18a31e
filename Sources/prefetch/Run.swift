import ArgumentParser
import AssetCache
import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Fetch, validate and cache every asset of a manifest, then print each message's verdict.")

    @Argument(help: ArgumentHelp(
        "The manifest: a path, '-' for stdin, or an http(s) URL.",
        discussion: "Default: $PREFETCH_MANIFEST, else 'manifest' of the configuration file (/etc/prefetch/prefetch.conf, see --config).",
        valueName: "manifest"))
    var manifest: String?

    @OptionGroup var common: CommonOptions

    @OptionGroup var output: ReportOptions

    @Option(help: "Transfers at once.")
    var concurrency = 8

    @Option(help: "Transfers at once to one host.")
    var perHost = 8

    @Option(help: ArgumentHelp("Disk budget for objects and trees (K, M, G suffixes); remembered for later gc and status.", valueName: "size"))
    var budget: ByteSize?

    @Option(help: ArgumentHelp(
        "Re-read at least this much of the cache each run to find bytes that rotted at rest (K, M, G suffixes).",
        discussion: "The scrub re-reads the objects and trees checked longest ago, the larger of --scrub-bytes and --scrub-percent of the cache, before the run fetches; what is damaged is removed and fetched again. 0 and 0 turn it off.",
        valueName: "size"))
    var scrubBytes = ByteSize(bytes: ScrubPolicy().minimumBytes)

    @Option(help: ArgumentHelp("Re-read at least this percentage of the cache each run (0-100).", valueName: "percent"))
    var scrubPercent = ScrubPolicy().percent

    @Option(help: ArgumentHelp(
        "How long the other assets wait for the session-start and push-click ones before starting anyway; 0 starts everything at once.",
        valueName: "seconds"))
    var headStart = Seconds(1)

    @Flag(help: "Readiness from the cache alone: no network.")
    var offline = false

    @Option(help: ArgumentHelp(
        "Download at most this many body bytes in the run (K, M, G suffixes); what does not fit is deferred to a later run.",
        discussion: "Session-start and push-click messages' assets claim it first, then by priority. An asset is not fetched when the size its cached copy had, or its response's Content-Length, exceeds what is left; one without either stops at the limit, its partial download kept for the next run. Its message is deferred, reason byte_budget. Cached fresh assets cost nothing, a 304 only its headers (not counted).",
        valueName: "size"))
    var maxDownloadBytes: ByteSize?

    @Option(help: ArgumentHelp(
        "Leave at least this much free on the cache's file system: a size (K, M, G suffixes) or a percentage of it (10%).",
        discussion: "The default, the smaller of 10% and 500M, is where Android's download and job schedulers call storage low. Before the run would cross it, it evicts what its manifest does not need; an asset that still does not fit is not written, its message deferred, reason storage_low, and a later run fetches it. 0 keeps no floor (a full disk still defers).",
        valueName: "size|percent"))
    var minFree = MinFreeArgument(.default)

    @Option(help: ArgumentHelp(
        "Whether the link is billed by the byte: yes, no, or auto (NetworkManager's Metered, else 'metered' of the configuration file).",
        discussion: "On a metered link only session-start and push-click messages' assets, and assets of at most --metered-max-asset-bytes, are fetched; the other messages are deferred, reason metered.",
        valueName: "yes|no|auto"))
    var metered = MeteredChoice.auto

    @Option(help: ArgumentHelp("On a metered link, the largest other asset fetched (K, M, G suffixes).", valueName: "size"))
    var meteredMaxAssetBytes = ByteSize(bytes: Self.defaultMeteredMaxAssetBytes)

    /// A banner or a slide-up's icon (tens of KiB) fits; a full-screen photo,
    /// a video poster or an HTML message's ZIP (hundreds of KiB and up) waits
    /// for an unmetered link. 256 KiB is also a few seconds of a 3G link.
    static let defaultMeteredMaxAssetBytes: Int64 = 256 << 10

    /// The configuration file's `metered`: what --metered auto falls back to
    /// where NetworkManager cannot say (ConfigKey maps the key here, so that
    /// a command line's --metered does not hide it).
    @Option(name: .customLong("metered-config"), help: .hidden)
    var meteredConfig: MeteredChoice?

    @Flag(help: ArgumentHelp(
        "Download a changed ZIP whole instead of fetching only its changed entries by range requests.",
        discussion: "By default a cached ZIP whose server sent Accept-Ranges: bytes is revalidated by asking for its tail; when it changed, only the entries that differ (and the local headers and central directory) are fetched and the new ZIP is rebuilt from the cached one, checked as a full download would be. Any doubt falls back to one full download."))
    var noDelta = false

    /// The configuration file's `delta` (ConfigKey maps the key here): `no`
    /// turns delta off as --no-delta does.
    @Option(name: .customLong("delta-config"), help: .hidden)
    var deltaConfig: DeltaChoice?

    @Option(help: ArgumentHelp(
        "Wait a random 0 to this many seconds before the first request, so that devices started by the same cron line spread out; skipped with --offline.",
        discussion: "Counted inside --max-run-time; SIGINT and SIGTERM end the wait at once.",
        valueName: "seconds"))
    var jitter = Seconds(0)

    @Option(help: ArgumentHelp("Wait up to this many seconds for another run's lock instead of exiting 75.", valueName: "seconds"))
    var wait = Seconds(0)

    @Option(help: ArgumentHelp(
        "Stop the whole run cleanly after this many seconds; 0 for no limit.",
        discussion: "Default 1500 (25 minutes), under the 30-minute period of the cron line and systemd timer the README gives, so that a slow CDN cannot make runs pile up. Unfinished downloads are kept and resumed by the next run.",
        valueName: "seconds"))
    var maxRunTime = Seconds(Self.defaultMaxRunTime)

    /// Seconds; below a half-hourly timer's period, with room to spare.
    static let defaultMaxRunTime: Double = 1500

    @Option(help: ArgumentHelp("Largest asset to download: bytes, or with a K, M or G suffix.", valueName: "size"))
    var maxAssetSize = ByteSize(bytes: TransferLimits().maxAssetSize)

    @Option(help: ArgumentHelp("Most bytes one ZIP may unpack to: bytes, or with a K, M or G suffix.", valueName: "size"))
    var maxUnpackedSize = ByteSize(bytes: ArchiveLimits().maxUnpackedSize)

    @Option(help: ArgumentHelp("Retries of a transient failure (408, 429, 5xx, network, timeout).", valueName: "n"))
    var retries = TransferLimits().retries

    @Option(help: ArgumentHelp(
        "Seconds to wait for the link to come back when every host fails at once (or a gateway answers 502, 503 or 504 to everything); 0 never waits.",
        discussion: "Meanwhile transfers are parked without using up --retries, the link is probed with a HEAD along the same path until an answer comes from beyond the first hop, and interrupted downloads resume with Range. Default 60: a cell handover or Wi-Fi re-association takes seconds; --max-run-time bounds the wait too.",
        valueName: "s"))
    var linkWait = Seconds(TransferLimits().linkWait)

    @Option(help: ArgumentHelp("Seconds to wait for a connection; 0 for libcurl's default.", valueName: "s"))
    var connectTimeout = Seconds(TransferLimits().connectTimeout)

    @Option(help: ArgumentHelp("Seconds under 1 KiB/s after which a transfer is abandoned; 0 for never.", valueName: "s"))
    var stallTimeout = Seconds(TransferLimits().stallTimeout)

    @Option(help: ArgumentHelp("Seconds one request may take in all; 0 for no limit.", valueName: "s"))
    var maxTime = Seconds(TransferLimits().maxTime)

    @Option(name: .customLong("max-redirs"), help: ArgumentHelp("Redirects to follow per request.", valueName: "n"))
    var maxRedirects = TransferLimits().maxRedirects

    @Option(help: ArgumentHelp(
        "Trust the CA certificates of this PEM file instead of the system's, for a private CA or a TLS-inspecting proxy (curl --cacert).",
        valueName: "file"))
    var cacert: String?

    @Option(name: .customLong("header"), help: ArgumentHelp(
        "Send this header with the manifest's requests (and its .sig's) to the manifest's own host, never to asset hosts; repeatable; values never logged. @FILE reads one header a line from FILE, which keeps secrets out of the command line (curl -H/--header).",
        valueName: "name: value|@file"))
    var headers: [HeaderArgument] = []

    @Option(help: ArgumentHelp(
        "Download at most this many bytes per second in all, every transfer together (K, M, G suffixes) (curl --limit-rate, which limits each transfer).",
        valueName: "size"))
    var limitRate: ByteSize?

    @OptionGroup var trust: TrustedKeyOptions

    @OptionGroup var checks: ManifestCheckOptions

    @Flag(help: "Let libcurl write TLS session secrets to the file SSLKEYLOGFILE names, to debug with Wireshark; without it the variable is ignored.")
    var allowKeylog = false

    @Option(help: ArgumentHelp(
        "After the run, however it ends, write its metrics in the Prometheus text format to this file, replaced atomically: name it *.prom in node_exporter's textfile directory.",
        valueName: "path"))
    var metricsFile: String?

    func validate() throws {
        guard (1...256).contains(concurrency) else { throw ValidationError("--concurrency must be between 1 and 256") }
        guard (1...256).contains(perHost) else { throw ValidationError("--per-host must be between 1 and 256") }
        guard maxAssetSize.bytes > 0 else { throw ValidationError("--max-asset-size must be at least 1 byte") }
        guard maxUnpackedSize.bytes > 0 else { throw ValidationError("--max-unpacked-size must be at least 1 byte") }
        guard (0...100).contains(retries) else { throw ValidationError("--retries must be between 0 and 100") }
        guard (0...100).contains(scrubPercent) else { throw ValidationError("--scrub-percent must be between 0 and 100") }
        guard (0...1000).contains(maxRedirects) else { throw ValidationError("--max-redirs must be between 0 and 1000") }
        if let limitRate, limitRate.bytes < 1 { throw ValidationError("--limit-rate must be at least 1 byte per second") }
        if let problem = headers.lazy.compactMap(\.problem).first { throw ValidationError(problem) }
        if let metricsFile { try MetricsFile.check(metricsFile) }
        // --offline ignores --jitter, so a jitter set for every run does not refuse it.
        if !offline, maxRunTime.value > 0, jitter.value >= maxRunTime.value {
            throw ValidationError("--jitter \(jitter) must be shorter than --max-run-time \(maxRunTime), which counts it")
        }
        for (flag, seconds) in [
            ("--connect-timeout", connectTimeout), ("--stall-timeout", stallTimeout), ("--max-time", maxTime), ("--head-start", headStart),
            ("--jitter", jitter),
            ("--link-wait", linkWait),
        ] {
            guard (0...86_400).contains(seconds.value) else {
                throw ValidationError("\(flag) must be a number of seconds from 0 to 86400")
            }
        }
    }

    func run() async throws {
        let metrics = metricsFile.map { MetricsFile(path: $0, cacheDirectory: common.cacheDirectory) }
        do {
            try await prefetch(metrics: metrics)
        } catch {
            let code = Prefetch.exitCode(for: error)
            metrics?.write(exitStatus: code == .validationFailure ? ExitStatus.usage : code.rawValue, logger: common.logger)
            throw error
        }
    }

    private func prefetch(metrics: MetricsFile?) async throws {
        // --max-run-time counts from here: the lock wait, the manifest, its .sig
        // and every redirect are inside it, not only the assets.
        let started = DispatchTime.now()
        let limit = maxRunTime.value > 0 ? maxRunTime.value : nil
        let runDeadline = limit.map { seconds in
            RunDeadline(
                instant: .now + CheckedNumber.duration(seconds: seconds),
                reason: "the run reached --max-run-time \(maxRunTime) s while fetching the manifest")
        }
        // Once the lock is held, a failure is recorded for `status` (last-failure.json).
        var lockedStore: CacheStore?
        do {
            guard let argument = manifest else {
                throw CommandFailure(
                    message: "no manifest: give a path, '-' or a URL, or set 'manifest = URL' in \(Configuration.systemFile)",
                    status: ExitStatus.usage, hint: "see 'prefetch run --help'")
            }
            if !offline, jitter.value > 0, let signal = await Jitter.wait(upTo: jitter.value, logger: common.logger) {
                common.logger.warning("interrupted by \(signal == SIGINT ? "SIGINT" : "SIGTERM") during the --jitter wait; nothing was fetched")
                throw ExitCode(128 + signal)
            }
            let source = ManifestSource(argument: argument)
            let trustedKeys = try trust.load()
            let manifestHeaders = try HeaderArgument.expand(headers)
            noteKeyLog()
            try checkCACertificates()
            // A local manifest's signature is checked before the cache is touched; a
            // remote one needs the cache's tmp/ to land in. Both are then judged
            // against what the cache accepted before, under its lock.
            var local = source.isRemote ? nil : try source.loadLocal(trustedKeys: trustedKeys)
            if local != nil { try checks.check(&local!.manifest, argument: argument, logger: common.logger) }
            let store = try common.openWriter(wait: wait.value)
            lockedStore = store
            var manifest = local?.manifest
            if let local { manifest!.indexed = source.indexed(local.bytes, signed: trustedKeys != nil) }
            if let local, trustedKeys != nil {
                try trust.judge(&manifest!, bytes: local.bytes, argument: source.argument, store: store, keeping: true, logger: common.logger)
            }
            var options = prefetchOptions()
            let progress = ProgressLine.start(quiet: common.quiet, json: output.json)
            options.progress = progress?.callback
            if manifest == nil {
                let fetching = ContinuousClock.now
                manifest = try await source.fetch(
                    into: store, limits: options.transfer, headers: manifestHeaders, channels: trust.audiences, trustedKeys: trustedKeys,
                    runDeadline: runDeadline, offline: offline, logger: common.logger)
                options.manifestFetch = ContinuousClock.now - fetching
                try checks.check(&manifest!, argument: argument, logger: common.logger)
            }
            trust.apply(to: &manifest!)
            let prefetcher = Prefetcher(store: store, options: options)
            let interruption = RunInterruption(stopping: prefetcher, maxRunTime: limit, startedAt: started)
            let report = try await prefetcher.run(manifest!)
            metrics?.record(report, stoppedEarly: interruption.stoppedEarly)
            progress?.finish()
            ReportPrinter(options: output, quiet: common.quiet).print(report)
            throw ExitCode(interruption.exitStatus ?? Self.exitStatus(for: report))
        } catch let failure as CommandFailure {
            record(failure, in: lockedStore)
            throw failure.report()
        } catch let error as StoreError {
            let failure = CommandFailure(error)
            record(failure, in: lockedStore)
            throw failure.report()
        }
    }

    /// The run's options from the command line's flags and the configuration
    /// file's keys; the progress line and the manifest's fetch time are added
    /// as the run starts.
    private func prefetchOptions() -> PrefetchOptions {
        var options = PrefetchOptions()
        options.transfer.concurrency = concurrency
        options.transfer.perHost = perHost
        options.transfer.maxAssetSize = maxAssetSize.bytes
        options.archive.maxUnpackedSize = maxUnpackedSize.bytes
        options.transfer.retries = retries
        options.transfer.linkWait = linkWait.value
        options.transfer.connectTimeout = connectTimeout.value
        options.transfer.stallTimeout = stallTimeout.value
        options.transfer.maxTime = maxTime.value
        options.transfer.maxRedirects = maxRedirects
        options.transfer.limitRate = limitRate?.bytes
        options.transfer.caCertFile = cacert
        options.budget = budget?.bytes
        options.scrub = ScrubPolicy(minimumBytes: scrubBytes.bytes, percent: scrubPercent)
        options.urgentHeadStart = CheckedNumber.duration(seconds: headStart.value)
        options.offline = offline
        options.delta = !noDelta && deltaConfig != DeltaChoice.no
        options.maxDownloadBytes = maxDownloadBytes?.bytes
        options.minimumFree = minFree.minimum
        if !offline {
            options.meteredLink = metered.link(configured: meteredConfig, maxAssetBytes: meteredMaxAssetBytes.bytes, logger: common.logger)
        }
        options.logger = common.logger
        return options
    }

    /// Best effort: a cache that cannot take the record (the disk that failed
    /// the run) still gets the error printed, which is what matters most.
    private func record(_ failure: CommandFailure, in store: CacheStore?) {
        guard let store else { return }
        let record = FailedRun(failedAt: Date().timeIntervalSince1970, exitStatus: failure.status, message: failure.message)
        do {
            try store.recordFailedRun(record)
        } catch {
            common.logger.debug("the failure was not recorded for 'prefetch status': \(error)")
        }
    }

    /// SSLKEYLOGFILE is ignored unless `--allow-keylog`; either way, it is said.
    private func noteKeyLog() {
        guard let path = ProcessInfo.processInfo.environment[TLSKeyLog.variable] else { return }
        if allowKeylog {
            TLSKeyLog.allow()
            common.logger.warning("--allow-keylog: TLS session secrets are written to \(path) (SSLKEYLOGFILE); anyone who can read it can read this run's traffic")
        } else {
            common.logger.warning("SSLKEYLOGFILE is set and ignored: no TLS session secrets are written (--allow-keylog writes them)")
        }
    }

    /// A `--cacert` that cannot be used would fail every https transfer one by one.
    private func checkCACertificates() throws(CommandFailure) {
        guard let cacert else { return }
        let data = try InputFile.read(cacert, limit: 16 << 20, as: InputFile.Name(name: "--cacert", file: "the CA's certificate file, in PEM form"))
        guard String(decoding: data, as: UTF8.self).contains("-----BEGIN CERTIFICATE-----") else {
            throw CommandFailure(
                message: "--cacert '\(cacert)' holds no PEM certificate ('-----BEGIN CERTIFICATE-----'); pass the CA's certificate in PEM form",
                status: ExitStatus.usage)
        }
    }

    static func exitStatus(for report: PrefetchReport) -> Int32 {
        if report.assets.contains(where: { $0.failure?.kind == .storage }) { return ExitStatus.storage }
        if report.totals.discarded > 0 { return ExitStatus.someDiscarded }
        return report.assets.contains(where: { $0.outcome == .stale }) ? ExitStatus.staleCopies : ExitStatus.ok
    }
}
