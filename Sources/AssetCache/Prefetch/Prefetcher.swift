import Foundation

/// Runs one prefetch: every asset of the manifest's messages fetched concurrently,
/// validated and committed, then a verdict per message.
public final class Prefetcher: Sendable {
    public let store: CacheStore
    public let options: PrefetchOptions

    public init(store: CacheStore, options: PrefetchOptions = .init()) {
        self.store = store
        self.options = options
    }

    public func run(_ manifest: Manifest) async throws -> PrefetchReport {
        let started = ContinuousClock.now
        let now = options.now ?? Date().timeIntervalSince1970
        let plan = AssetPlan(manifest: manifest, now: now)
        let engine = try TransferEngine(limits: options.transfer)
        defer { engine.shutdown() }
        let pipeline = AssetPipeline(
            store: store, engine: engine, pool: ValidationPool(width: options.validationWorkers),
            options: options, integrity: manifest.integrity, started: started, now: now)

        var records: [AssetURL: AssetRecord] = [:]
        await withTaskGroup(of: AssetRecord.self) { group in
            for item in plan.fetch {
                group.addTask { await pipeline.process(item) }
            }
            for await record in group { records[record.url] = record }
        }
        for (url, kind) in plan.skipped {
            records[url] = AssetRecord(url: url, kind: kind, outcome: .skipped, attempts: 0, finishedMs: 0)
        }

        let messages = manifest.actions.map { action in
            let verdict = Readiness.verdict(for: action, at: now) { records[$0]?.state }
            let readyMs = verdict.status == .ready
                ? action.message.assets.compactMap { records[$0.url]?.finishedMs }.max() ?? 0
                : nil
            return MessageReport(id: action.id, verdict: verdict, readyMs: readyMs)
        }
        let assets = (plan.fetch.map(\.url) + plan.skipped.map(\.url)).compactMap { records[$0] }
        return PrefetchReport(
            cacheDirectory: store.root, durationMs: pipeline.elapsedMs(), messages: messages, assets: assets)
    }
}
