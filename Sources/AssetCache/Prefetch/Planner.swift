#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Readiness from the cache alone, for `plan`: no network, no lock, no writes.
public enum Planner {
    public static func plan(
        _ manifest: Manifest, store: CacheStore?, cacheDirectory: String, now: Double? = nil
    ) -> PrefetchReport {
        let started = ContinuousClock.now
        let now = now ?? Date().timeIntervalSince1970
        let plan = AssetPlan(manifest: manifest, now: now)
        var records: [AssetRecord] = []
        records.reserveCapacity(plan.fetchedRecords + plan.skipped.count)
        let urls = plan.fetch.map(\.url)
        let copies = store.map { CachedCopy.all(store: $0, urls: urls) }
        for (index, item) in plan.fetch.enumerated() {
            guard let copy = copies?[index] else {
                records += item.failed(AssetFailure(.offlineMiss, "\(item.url) is not in the cache"), attempts: 0, finishedMs: 0)
                continue
            }
            // As readiness at display time judges it (CacheStore.cachedState), kind by kind.
            for kind in item.kinds {
                switch copy.state(as: kind, url: item.url, pin: manifest.integrity[item.url]) {
                case .success(let path):
                    records.append(AssetRecord(
                        url: item.url, kind: kind, outcome: .cached, sha256: copy.ref.object, bytes: copy.ref.bytes,
                        path: path, attempts: 0, failure: nil, finishedMs: 0))
                case .failure(let failure):
                    records.append(.failed(item.url, kind, failure, attempts: 0, finishedMs: 0))
                }
            }
        }
        let elapsed = ContinuousClock.now - started
        return PrefetchReport(
            manifest: manifest, plan: plan, fetched: records, now: now, cacheDirectory: cacheDirectory,
            durationMs: Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000))
    }
}
