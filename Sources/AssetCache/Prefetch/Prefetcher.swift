import Foundation
import Synchronization

/// Runs one prefetch: every asset of the manifest's messages fetched concurrently
/// (or, offline, looked up), validated and committed; then a verdict per message,
/// eviction down to the budget, and the run remembered in `state.json`.
public final class Prefetcher: Sendable {
    public let store: CacheStore
    public let options: PrefetchOptions
    /// The running engine, and why the run was stopped if it was.
    private let control = Mutex<(engine: TransferEngine?, stopReason: String?)>((nil, nil))

    public init(store: CacheStore, options: PrefetchOptions = .init()) {
        self.store = store
        self.options = options
    }

    /// Ends the run cleanly from any thread (a signal, `--max-run-time`): transfers
    /// are cancelled, partial downloads kept for resume, commits under way finish,
    /// nothing is half-committed. `run` then returns its report.
    public func stop(reason: String) {
        let engine = control.withLock { state in
            if state.stopReason == nil { state.stopReason = reason }
            return state.engine
        }
        engine?.cancelAll(reason: reason)
    }

    public func run(_ manifest: Manifest) async throws -> PrefetchReport {
        let started = ContinuousClock.now
        let now = options.now ?? Date().timeIntervalSince1970
        let plan = AssetPlan(manifest: manifest, now: now)
        let engine = options.offline ? nil : try TransferEngine(limits: options.transfer)
        defer { engine?.shutdown() }
        let stoppedEarly = control.withLock { state in
            state.engine = engine
            return state.stopReason
        }
        if let stoppedEarly { engine?.cancelAll(reason: stoppedEarly) }
        let committer = AssetCommit(store: store, options: options, integrity: manifest.integrity, now: now)
        let pipeline = AssetPipeline(
            store: store, engine: engine, pool: ValidationPool(width: options.validationWorkers),
            committer: committer, started: started, now: now)

        var records: [AssetURL: AssetRecord] = [:]
        await withTaskGroup(of: AssetRecord.self) { group in
            for item in plan.fetch {
                group.addTask { await pipeline.process(item) }
            }
            for await record in group { records[record.url] = record }
        }
        var report = PrefetchReport(
            manifest: manifest, plan: plan, records: records, now: now, cacheDirectory: store.root,
            durationMs: pipeline.elapsedMs())
        report.garbageCollection = try remember(report, plan: plan)
        return report
    }

    /// Evicts down to the budget, keeping everything this manifest needs, and
    /// records the run for `status` and for the next `gc`.
    private func remember(_ report: PrefetchReport, plan: AssetPlan) throws(StoreError) -> GarbageCollection {
        var state = store.readState()
        if let budget = options.budget { state.budget = budget }
        let needed = plan.fetch.map { FileSystem.lastComponent(store.refPath(for: $0.url)) }
        let inUse = Set(report.assets.compactMap { $0.path == nil ? nil : $0.sha256 })
        let collection = store.collectGarbage(budget: state.budget, neededRefs: Set(needed), neededObjects: inUse)
        let totals = report.totals
        state.lastRun = CacheState.LastRun(
            finishedAt: Date().timeIntervalSince1970, durationMs: report.durationMs, messages: totals.messages,
            ready: totals.ready, discarded: totals.discarded, deferred: totals.deferred, expired: totals.expired,
            assets: totals.assets, downloadedBytes: totals.downloadedBytes, needed: needed)
        try store.writeState(state)
        return collection
    }
}

/// Readiness from the cache alone, for `plan`: no network, no lock, no writes.
public enum Planner {
    public static func plan(_ manifest: Manifest, store: CacheStore?, cacheDirectory: String, now: Double? = nil) -> PrefetchReport {
        let started = ContinuousClock.now
        let now = now ?? Date().timeIntervalSince1970
        let plan = AssetPlan(manifest: manifest, now: now)
        var records: [AssetURL: AssetRecord] = [:]
        for item in plan.fetch {
            if let store, let copy = CachedCopy(store: store, url: item.url) {
                records[item.url] = AssetRecord(
                    url: item.url, kind: item.kind, outcome: .cached, sha256: copy.ref.object, bytes: copy.ref.bytes,
                    path: copy.path, attempts: 0, failure: nil, finishedMs: 0)
            } else {
                records[item.url] = .failed(item, AssetFailure(.offlineMiss, "\(item.url) is not in the cache"), attempts: 0, finishedMs: 0)
            }
        }
        let elapsed = ContinuousClock.now - started
        return PrefetchReport(
            manifest: manifest, plan: plan, records: records, now: now, cacheDirectory: cacheDirectory,
            durationMs: Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000))
    }
}
