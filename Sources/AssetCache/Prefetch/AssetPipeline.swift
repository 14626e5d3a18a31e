#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The life of one asset URL in a run (docs/cache-format.md): use the cached copy while it
/// is fresh, revalidate it when stale, download it when absent, and keep a cached
/// copy when the server fails transiently.
struct AssetPipeline: Sendable {
    let store: CacheStore
    let engine: TransferEngine?
    /// CPU: decoding and unpacking.
    let validation: BlockingPool
    /// Disk: renames and flushes, in batches.
    let commits: GroupCommit
    let committer: AssetCommit
    let started: ContinuousClock.Instant
    let now: Double
    let observer: TransferObserver

    func process(_ item: AssetPlan.Item) async -> AssetRecord {
        var cached = CachedCopy(store: store, url: item.url)
        if let copy = cached, let pin = committer.integrity[item.url] {
            if let failure = copy.integrityFailure(pin: pin, url: item.url) {
                // Not these bytes, whatever their freshness or a 304 says. With
                // no network that is the answer; with one, the URL is fetched
                // afresh (no validators: a 304 would only vouch for the bytes
                // refused), and only bytes matching the pin replace the ref.
                guard engine != nil else { return .failed(item, failure, attempts: 0, finishedMs: elapsedMs()) }
                cached = nil
            } else {
                // The publisher vouches for these very bytes: nothing to ask a server.
                store.touchRef(for: item.url)
                return record(item, engine == nil ? .cached : .fresh, copy)
            }
        }
        guard let engine else {
            if let cached {
                store.touchRef(for: item.url)
                return record(item, .cached, cached)
            }
            return .failed(item, AssetFailure(.offlineMiss, "\(item.url) is not in the cache"), attempts: 0, finishedMs: elapsedMs())
        }
        if let cached, cached.isFresh(at: now) {
            store.touchRef(for: item.url)
            return record(item, .fresh, cached)
        }

        let download = store.temporaryFile("download")
        // A cached copy is revalidated whole; only an absent one resumes a partial.
        let resume = cached == nil ? store.takePartial(for: item.url, into: download) : nil
        if cached != nil { store.dropPartial(for: item.url) }
        var request = TransferRequest(
            url: item.url.string, location: download, priority: item.priority,
            headers: cached?.conditionalHeaders ?? [], resume: resume)
        request.observer = observer
        let result = await engine.fetch(request)

        if let cached, result.status == 304 {
            // Usually there is no file: a 304 has no body. Looking first spares an
            // unlink that would take tmp/'s lock from the commits renaming out of it.
            if download.directory.status(download.name) != nil { download.directory.unlink(download.name) }
            let ref = cached.revalidated(by: result.headers, at: now)
            if ref.onlyFetchTimeDiffers(from: cached.ref) {
                // Nothing the next run reads would change: without a freshness
                // lifetime the time of the fetch is never consulted. Only the LRU
                // clock moves, as for a fresh copy.
                store.touchRef(for: item.url)
                return record(item, .revalidated, cached, attempts: result.attempts)
            }
            let written = await commits.commit(PendingCommit(url: item.url, sha256: ref.object, ref: ref))
            if case .failure(let error) = written {
                return .failed(item, AssetFailure(.storage, error.description), attempts: result.attempts, finishedMs: elapsedMs())
            }
            return record(item, .revalidated, cached, attempts: result.attempts)
        }
        if let failure = result.failure {
            if let resumable = result.resumable {
                store.savePartial(download, for: item.url, resume: resumable)
            } else {
                download.directory.unlink(download.name)
            }
            return failed(item, failure, result: result, cached: cached)
        }
        let validated = await validation.run { [committer] in committer.validate(item, download: download, result: result) }
        let committed: Result<String, AssetFailure>
        switch validated {
        case .success(let valid):
            let entry = committer.pending(valid)
            let result = item.isUrgent ? await commits.commitNow(entry) : await commits.commit(entry)
            committed = result.map { committer.localPath(valid) }.mapError { AssetFailure(.storage, $0.description) }
        case .failure(let failure): committed = .failure(failure)
        }
        switch committed {
        case .success(let path):
            return AssetRecord(
                url: item.url, kind: item.kind, outcome: .downloaded, sha256: result.sha256, bytes: result.bytes,
                path: path, attempts: result.attempts, failure: nil, finishedMs: elapsedMs())
        case .failure(let failure):
            return .failed(item, failure, attempts: result.attempts, finishedMs: elapsedMs())
        }
    }

    /// A transient failure keeps the cached copy in use (`stale`); a 404 or 410
    /// says the asset is gone, so its ref is dropped.
    private func failed(_ item: AssetPlan.Item, _ failure: AssetFailure, result: TransferResult, cached: CachedCopy?) -> AssetRecord {
        if let cached {
            if result.status == 404 || result.status == 410 {
                store.dropRef(for: item.url)
            } else if failure.isTransient(status: result.status) {
                store.touchRef(for: item.url)
                var record = record(item, .stale, cached, attempts: result.attempts)
                record.failure = failure
                return record
            }
        }
        return .failed(item, failure, attempts: result.attempts, finishedMs: elapsedMs())
    }

    private func record(_ item: AssetPlan.Item, _ outcome: AssetOutcome, _ cached: CachedCopy, attempts: Int = 0) -> AssetRecord {
        AssetRecord(
            url: item.url, kind: item.kind, outcome: outcome, sha256: cached.ref.object, bytes: cached.ref.bytes,
            path: cached.path, attempts: attempts, failure: nil, finishedMs: elapsedMs())
    }

    func elapsedMs() -> Int {
        let elapsed = ContinuousClock.now - started
        return Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
    }
}

extension AssetFailure {
    /// Worth keeping a cached copy for: the server or the network may recover.
    func isTransient(status: Int) -> Bool {
        switch kind {
        case .network, .timeout: true
        case .httpStatus: status == 408 || status == 429 || (500...599).contains(status)
        default: false
        }
    }
}
