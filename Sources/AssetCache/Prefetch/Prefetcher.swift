#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import Synchronization

/// Runs one prefetch: every asset of the manifest's messages fetched concurrently
/// (or, offline, looked up), validated and committed; then a verdict per message,
/// eviction down to the budget, the run remembered in `state.json`, and the
/// verdicts written to `readiness.json` for display apps.
public final class Prefetcher: Sendable {
    public let store: CacheStore
    public let options: PrefetchOptions
    /// The running engine, and why the run was stopped if it was.
    private let control = Mutex<(engine: TransferEngine?, stopReason: String?)>((nil, nil))
    /// Callers of ``decisions()``.
    private let listeners = Mutex<[AsyncStream<ReadinessIndex.Message>.Continuation]>([])

    public init(store: CacheStore, options: PrefetchOptions = .init()) {
        self.store = store
        self.options = options
    }

    /// Ends the run cleanly from any thread (a signal, `--max-run-time`): transfers
    /// are cancelled, partial downloads kept for resume, commits under way finish,
    /// nothing is half-committed. `run` then returns its report.
    public func stop(reason: String) {
        // The reason is set before the transfers fail for it: the running index
        // asks it, and lets no failure after it decide a message.
        let engine = control.withLock { state in
            if state.stopReason == nil { state.stopReason = reason }
            return state.engine
        }
        options.logger.warning("stopping the run: \(reason); unfinished downloads are kept for the next run to resume")
        engine?.cancelAll(reason: reason)
    }

    /// Every message the next ``run(_:)`` decides, as soon as it decides it: a
    /// ready one once its assets' commit is durable, as `readiness.json` then
    /// says. Ends when the run does. Call it before `run`.
    public func decisions() -> AsyncStream<ReadinessIndex.Message> {
        let (stream, continuation) = AsyncStream<ReadinessIndex.Message>.makeStream()
        listeners.withLock { $0.append(continuation) }
        return stream
    }

    private var isStopping: Bool { control.withLock { $0.stopReason != nil } }

    private func tell(_ message: ReadinessIndex.Message) {
        for listener in listeners.withLock({ $0 }) { listener.yield(message) }
    }

    private func endDecisions() {
        for listener in listeners.withLock({ listeners in defer { listeners = [] }; return listeners }) { listener.finish() }
    }

    /// Fetches, validates and commits every asset the manifest's live messages
    /// prefetch, then decides each message's verdict. Asset failures are in the
    /// report, never thrown; only a cache that cannot be written at the end
    /// (`state.json`, `readiness.json`) throws.
    public func run(_ manifest: Manifest) async throws(StoreError) -> PrefetchReport {
        let started = ContinuousClock.now
        let now = options.now ?? Date().timeIntervalSince1970
        // First, so that its started_at is the clock ready_ms counts from.
        store.markRunStarted()
        defer {
            store.markRunEnded()
            // However the run ends, thrown out included: a caller awaits the end.
            endDecisions()
        }
        let scrub = prepareStore()
        let plan = AssetPlan(manifest: manifest, now: now)
        for warning in manifest.warnings { options.logger.warning("\(warning)") }
        options.logger.info(
            "\(options.offline ? "looking up" : "prefetching") \(plan.fetch.count) assets of \(manifest.actions.count) messages in \(store.root)")

        let (engine, engineFailure) = startEngine()
        defer { engine?.shutdown() }
        let validation = BlockingPool(width: options.validationWorkers, name: "validation")
        let commitPool = BlockingPool(width: options.commitWorkers, name: "commit")
        defer {
            validation.shutdown()
            commitPool.shutdown()
        }
        let commits = try GroupCommit(
            store: store, pool: commitPool, window: options.commitWindow, assets: plan.fetch.count,
            urgent: plan.fetch.count(where: \.isUrgent), inProgress: options.pipelineWindow, batchLimit: options.commitBatchLimit,
            method: options.flushMethod, observer: options.durabilityObserver)
        let index = runningIndex(manifest, plan: plan, scrub: scrub, now: now, pool: commitPool)
        await index.start()
        var pipeline = makePipeline(
            manifest, engine: engine, validation: validation, commits: commits, started: started, now: now)
        pipeline.space = runSpace(manifest, plan: plan, engine: engine, index: index, pool: commitPool)

        let records = await fetchAll(plan, pipeline: pipeline, index: index, engineFailure: engineFailure)
        try await commits.close()
        await index.settle()

        var report = makeReport(manifest, plan: plan, records: records, pipeline: pipeline, scrub: scrub, now: now)
        report.garbageCollection = try evictAndRecord(
            report, plan: plan, keeping: await index.undecidedObjects(), scrubbed: scrub?.position)
        // Last: after the eviction, so that it names only what stays.
        try await finish(index)
        return report
    }

    // MARK: Preparing the store

    /// Before any asset: lease files for objects an older release stored,
    /// before anything here may remove one (docs/cache-format.md#leases); then
    /// the scrub, so that what it finds damaged is fetched again by this run.
    private func prepareStore() -> ScrubResult? {
        store.reconcileLeaseFiles()
        return options.scrub.isOff ? nil : store.scrub(options.scrub, from: store.readState().scrub)
    }

    /// The stages every asset goes through, with the run's limits.
    private func makePipeline(
        _ manifest: Manifest, engine: TransferEngine?, validation: BlockingPool, commits: GroupCommit,
        started: ContinuousClock.Instant, now: Double
    ) -> AssetPipeline {
        let validator = AssetValidator(store: store, options: options, integrity: manifest.integrity, now: now)
        let observer = TransferObserver(logger: options.logger)
        // No limits offline: nothing is downloaded.
        let budget = engine == nil ? nil : options.maxDownloadBytes.map(ByteBudget.init(limit:))
        return AssetPipeline(
            store: store, engine: engine, validation: validation, commits: commits,
            validator: validator, started: started, now: now, observer: observer,
            budget: budget, admission: budget.map { _ in AdmissionOrder() }, meteredLink: engine == nil ? nil : options.meteredLink,
            mirror: options.localMirror.map { LocalMirror.Source(mirror: $0, maxAssetSize: options.transfer.maxAssetSize) },
            bodyArrived: options.bodyArrived)
    }

    // MARK: Fetching everything

    /// Every asset of the plan through the pipeline, urgent ones first
    /// (``HeadStart``); their records in plan order.
    private func fetchAll(
        _ plan: AssetPlan, pipeline: AssetPipeline, index: RunningIndex, engineFailure: AssetFailure?
    ) async -> [AssetRecord] {
        let progress = options.progress.map {
            ProgressReporter(total: plan.fetchedRecords, observer: pipeline.observer, started: pipeline.started, callback: $0)
        }
        progress?.begin()
        let ticker = progress.map { reporter in Task { await reporter.tick() } }
        defer { ticker?.cancel() }
        let urgent = plan.fetch.count(where: \.isUrgent)
        let headStart = HeadStart(urgent: options.urgentHeadStart > .zero ? urgent : 0)
        let timer = Task { [limit = options.urgentHeadStart] in
            try? await Task.sleep(for: limit)
            headStart.open()
        }
        defer { timer.cancel() }
        var records = RecordsInPlanOrder(capacity: plan.fetchedRecords + plan.skipped.count)
        await fetchInWindow(plan, pipeline: pipeline, headStart: headStart, engineFailure: engineFailure) { position, itemRecords in
            await index.take(itemRecords, at: position, stopping: isStopping)
            for (offset, record) in itemRecords.enumerated() {
                Self.log(record, to: options.logger)
                progress?.finished(record)
                records.append(record, position: position + offset)
            }
        }
        return records.ordered()
    }

    /// A bounded window of assets in progress, fed in plan order (which is
    /// priority order): memory follows the concurrency, not the manifest.
    /// `take`: each asset's records as it ends, with where they start in the report.
    private func fetchInWindow(
        _ plan: AssetPlan, pipeline: AssetPipeline, headStart: HeadStart, engineFailure: AssetFailure?,
        take: (_ position: Int, _ records: [AssetRecord]) async -> Void
    ) async {
        // Where each item's records start in the report: an item has one per kind.
        var firstRecord: [Int] = []
        firstRecord.reserveCapacity(plan.fetch.count)
        var recordCount = 0
        for item in plan.fetch {
            firstRecord.append(recordCount)
            recordCount += item.kinds.count
        }
        await withTaskGroup(of: (Int, [AssetRecord]).self) { group in
            var next = plan.fetch.enumerated().makeIterator()
            func startNext() {
                guard let (index, item) = next.next() else { return }
                let position = firstRecord[index]
                group.addTask {
                    (position, await Self.fetch(item, at: index, pipeline: pipeline, headStart: headStart, engineFailure: engineFailure))
                }
            }
            for _ in 0..<options.pipelineWindow { startNext() }
            while let (position, itemRecords) = await group.next() {
                await take(position, itemRecords)
                startNext()
            }
        }
    }

    /// One asset, the `index`th of the plan, through the pipeline, once the
    /// urgent ones have had their head start if it is not one of them.
    private static func fetch(
        _ item: AssetPlan.Item, at index: Int, pipeline: AssetPipeline, headStart: HeadStart, engineFailure: AssetFailure?
    ) async -> [AssetRecord] {
        if let engineFailure {
            await pipeline.commits.leave(isUrgent: item.isUrgent)
            pipeline.admission?.settle(index)
            pipeline.space?.urgentFirst.settle(index)
            return item.failed(engineFailure, attempts: 0, finishedMs: pipeline.elapsedMs())
        }
        if !item.isUrgent { await headStart.wait() }
        let itemRecords = await pipeline.process(item, position: index)
        // However it ended: the next asset may claim the budget, and the room.
        pipeline.admission?.settle(index)
        pipeline.space?.urgentFirst.settle(index)
        if item.isUrgent { headStart.urgentFinished() }
        await pipeline.commits.leave(isUrgent: item.isUrgent)
        return itemRecords
    }

    // MARK: The report, eviction and readiness

    /// The run's report, from its records and what the engine and the limits saw.
    private func makeReport(
        _ manifest: Manifest, plan: AssetPlan, records: [AssetRecord], pipeline: AssetPipeline, scrub: ScrubResult?, now: Double
    ) -> PrefetchReport {
        var report = PrefetchReport(
            manifest: manifest, plan: plan, fetched: records, now: now, cacheDirectory: store.root,
            durationMs: pipeline.elapsedMs() + Int(options.manifestFetch / .milliseconds(1)))
        report.downloadedBytes = pipeline.observer.receivedBytes
        report.connections = pipeline.engine?.connectionsOpened ?? 0
        report.byteBudget = pipeline.budget.map { PrefetchReport.ByteBudgetUse(maxDownloadBytes: $0.limit) }
        report.meteredLink = pipeline.meteredLink
        report.freeSpace = pipeline.space.flatMap { space in
            store.fileSystemSpace().map {
                PrefetchReport.FreeSpaceUse(
                    minFreeBytes: space.floor.floor, freeBytes: $0.free, lowestFreeBytes: space.floor.lowestFree,
                    evictedRefs: space.roomMaker.evicted.refs)
            }
        }
        report.logStorageLow(to: options.logger)
        report.link = pipeline.engine?.linkOutages
        report.scrub = scrub
        report.manifestOrigin = manifest.origin
        // At the default level: a server down must not pass for a quiet run.
        report.logStaleHosts(to: options.logger, now: Date().timeIntervalSince1970)
        return report
    }

    /// The index a display app reads, brought up to date as the run decides
    /// messages (``RunningIndex``), from the one the last run left.
    private func runningIndex(_ manifest: Manifest, plan: AssetPlan, scrub: ScrubResult?, now: Double, pool: BlockingPool) -> RunningIndex {
        // An unreadable index is as none: this run replaces it.
        var previous = (try? store.readReadinessIndex()) ?? nil
        // The scrub may have removed what the last index names: it is fetched again.
        if let scrub, !scrub.damaged.isEmpty {
            previous = previous?.dropping(by: "run", at: Date().timeIntervalSince1970, exists: store.hasFiles(of:))
        }
        let progress = IndexProgress(manifest: manifest, plan: plan, previous: previous, store: store, now: now)
        return RunningIndex(
            progress: progress, previous: previous, manifest: manifest.indexed, store: store, pool: pool,
            logger: options.logger) { [weak self] message in self?.tell(message) }
    }

    /// The run's last index: what a stopped run did not decide keeps the last
    /// index's verdict, unless its files are gone.
    private func finish(_ index: RunningIndex) async throws(StoreError) {
        let now = Date().timeIntervalSince1970
        let stopped = isStopping
        var messages = await index.finalMessages(stopped: stopped)
        if stopped {
            messages = ReadinessIndex(computedAt: now, computedBy: "run", cacheDirectory: store.root, manifest: nil, messages: messages)
                .dropping(by: "run", at: now, exists: store.hasFiles(of:)).messages
        }
        try await index.finish(messages, at: now)
    }

    /// Evicts down to the budget, keeping everything this manifest needs, and
    /// records the run for `status` and for the next `gc`: `needed.json` when
    /// the manifest needs other refs than the last run's, then `state.json`,
    /// with where the scrub goes on and this run's revalidations.
    /// `keeping`: objects the index still names for messages a stopped run did not decide.
    private func evictAndRecord(
        _ report: PrefetchReport, plan: AssetPlan, keeping: Set<String>, scrubbed: ScrubPosition?
    ) throws(StoreError) -> GarbageCollection {
        var state = store.readState()
        if let budget = options.budget { state.budget = budget }
        let needed = plan.fetch.map { store.refName(for: $0.url) }
        let inUse = Set(report.assets.compactMap { $0.path == nil ? nil : $0.sha256 }).union(keeping)
        let collection = store.collectGarbage(budget: state.budget, roots: state.roots(needing: needed, objectsInUse: inUse))
        collection.log(to: options.logger)
        try store.rememberNeededRefs(needed)
        let totals = report.totals
        state.lastRun = CacheState.LastRun(
            finishedAt: Date().timeIntervalSince1970, durationMs: report.durationMs, messages: totals.messages,
            ready: totals.ready, discarded: totals.discarded, deferred: totals.deferred, expired: totals.expired,
            assets: totals.assets, downloadedBytes: totals.downloadedBytes)
        if let scrubbed { state.scrub = scrubbed }
        state.revalidated = store.revalidationsToKeep(refs: Set(needed).union(state.manifests))
        try store.writeState(state)
        store.clearFailedRun()
        return collection
    }
}

extension Prefetcher {
    /// The run's engine, where ``stop(reason:)`` finds it; cancelled at once
    /// if the run was stopped before it started.
    private func startEngine() -> (TransferEngine?, AssetFailure?) {
        let (engine, failure) = makeEngine()
        let stoppedEarly = control.withLock { state in
            state.engine = engine
            return state.stopReason
        }
        if let stoppedEarly { engine?.cancelAll(reason: stoppedEarly) }
        return (engine, failure)
    }

    /// No engine offline. One that cannot start fails every asset with the
    /// reason, as any transfer failure would, rather than failing the run.
    private func makeEngine() -> (TransferEngine?, AssetFailure?) {
        guard !options.offline else { return (nil, nil) }
        do {
            return (try TransferEngine(limits: options.transfer), nil)
        } catch {
            return (nil, AssetFailure(.network, "the transfer engine could not start: \(error)"))
        }
    }

    static func log(_ record: AssetRecord, to logger: Logger) {
        var metadata: Logger.Metadata = ["outcome": "\(record.outcome.rawValue)", "attempts": "\(record.attempts)"]
        if let failure = record.failure {
            metadata["error.kind"] = "\(failure.kind.rawValue)"
            // A failure is in the report already; a stale copy in use deserves a word.
            let level: Logger.Level = record.outcome == .stale ? .notice : .info
            logger.log(level: level, "\(record.url): \(record.outcome.rawValue): \(failure)", metadata: metadata)
        } else {
            logger.debug("\(record.url): \(record.outcome.rawValue)\(record.bytes.map { ", \($0) bytes" } ?? "")", metadata: metadata)
        }
    }
}

extension GarbageCollection {
    /// Evictions are news at `info`; needed assets over the budget are a warning.
    func log(to logger: Logger) {
        if neededExceedBudget {
            logger.warning("the manifest's assets alone exceed the budget of \(budget) bytes; they were kept")
        }
        if keptLeased > 0 {
            logger.info("kept \(keptLeased) objects or trees (\(keptLeasedBytes) bytes) that display apps lease; a later run or gc removes them once released")
        }
        if evictedRefs > 0 || removedObjects > 0 || removedTrees > 0 {
            logger.info(
                "evicted \(evictedRefs) refs, removed \(removedObjects) objects and \(removedTrees) trees; \(bytesAfter) of \(budget) bytes in use",
                metadata: ["evicted": "\(evictedRefs)", "bytes.before": "\(bytesBefore)", "bytes.after": "\(bytesAfter)"])
        }
    }
}
