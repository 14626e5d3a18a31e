//! Show the session-start message as soon as a run has committed its assets.
// snippet.hide
import AssetCache
import InAppDelivery

@MainActor
func example(manifest: Manifest, store: CacheStore, presenter: any MessagePresenter) async throws {
// snippet.show
let engine = try DeliveryEngine(manifest: manifest, readiness: store, presenter: presenter, clock: SystemClock())
let prefetcher = Prefetcher(store: store)
// Before the run: every message it decides, as soon as it decides it.
let decisions = prefetcher.decisions()
// A message whose asset is not in the cache yet now waits for the run
// (queued, assets_pending) instead of being discarded.
engine.prefetchStarted()
let run = Task { try await prefetcher.run(manifest) }
engine.handle(.sessionStart)
for await message in decisions {
    // Offered at once if it was waiting: shown within a moment of its commit.
    engine.prefetchDecided(message.id)
}
engine.prefetchEnded()
let report = try await run.value
print("\(report.totals.ready) of \(report.totals.messages) messages ready")
// snippet.hide
}
