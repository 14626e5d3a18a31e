//! Prefetch a manifest's assets, then ask whether one message is ready.
// snippet.hide
import AssetCache
import Foundation

func example(manifestData: Data, cacheDirectory: String) async throws {
// snippet.show
// The manifest, as the server sent it: wrong types are errors naming the JSON path.
let manifest = try Manifest.decode(manifestData)

// A writer holds the cache's lock until the store is released.
let store = try CacheStore.openForWriting(at: cacheDirectory)

var options = PrefetchOptions()
options.transfer.concurrency = 4
options.progress = { progress in
    print("\(progress.completedAssets)/\(progress.totalAssets) assets")
}
let report = try await Prefetcher(store: store, options: options).run(manifest)
print("\(report.totals.ready) ready, \(report.totals.discarded) discarded")

// Later, at display time, from the cache alone: no network, no lock.
if let action = manifest.actions.first(where: { $0.id == "spring-sale" }) {
    let verdict = store.verdict(for: action)
    switch verdict.status {
    case .ready:
        for asset in verdict.assets { print("show \(asset.path)") }
    case .discarded:
        print("discarded: \(verdict.reason!.rawValue) \(verdict.detail ?? "")")
    case .deferred, .expired:
        break
    }
}
// snippet.hide
}
