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
/// copy when the server fails transiently. A URL is fetched once, whatever kinds
/// the messages use it as, and gives one record per kind: its bytes are checked
/// as each kind, and a cached copy serves a kind only if it passed that kind's checks.
struct AssetPipeline: Sendable {
    let store: CacheStore
    let engine: TransferEngine?
    /// CPU: decoding and unpacking.
    let validation: BlockingPool
    /// Disk: renames and flushes, in batches.
    let commits: GroupCommit
    let validator: AssetValidator
    let started: ContinuousClock.Instant
    let now: Double
    let observer: TransferObserver
    /// `--max-download-bytes`, and the plan order in which assets claim it.
    var budget: ByteBudget?
    var admission: AdmissionOrder?
    var meteredLink: MeteredLink?

    /// One record per kind of `item`, in its kinds' order. `position` is the
    /// item's in the plan: under a byte budget, assets claim it in that order.
    func process(_ item: AssetPlan.Item, position: Int) async -> [AssetRecord] {
        var cached = CachedCopy(store: store, url: item.url)
        // A copy the pin refuses may still hold most of the pinned ZIP's bytes.
        var deltaBase: CachedCopy?
        if let copy = cached, let pin = validator.integrity[item.url] {
            if let failure = copy.integrityFailure(pin: pin, url: item.url) {
                // Not these bytes, whatever their freshness or a 304 says. With
                // no network that is the answer; with one, the URL is fetched
                // afresh (no validators: a 304 would only vouch for the bytes
                // refused), and only bytes matching the pin replace the ref.
                guard engine != nil else { return item.failed(failure, attempts: 0, finishedMs: elapsedMs()) }
                deltaBase = copy
                cached = nil
            } else if copy.kinds.isSuperset(of: item.kinds) {
                // The publisher vouches for these very bytes: nothing to ask a server.
                store.touchRef(for: item.url)
                return records(item, engine == nil ? .cached : .fresh, copy)
            }
        }
        guard let engine else {
            guard let cached else {
                return item.failed(AssetFailure(.offlineMiss, "\(item.url) is not in the cache"), attempts: 0, finishedMs: elapsedMs())
            }
            store.touchRef(for: item.url)
            return records(item, .cached, cached)
        }
        // A copy that was not checked as every kind this run needs is not
        // revalidated: a 304 would bring no bytes to check as the others. The URL
        // is fetched whole and checked as each kind; the copy is only fallen
        // back on if that fails transiently.
        let revalidating = cached.flatMap { $0.kinds.isSuperset(of: item.kinds) ? $0 : nil }
        if let revalidating, revalidating.isFresh(at: now) {
            store.touchRef(for: item.url)
            return records(item, .fresh, revalidating)
        }

        var allowance = downloadAllowance(for: item, position: position)
        if let limits = allowance {
            // The size the ref remembers (a revalidation may bring a new body of
            // about that size), else what a HEAD says; asked before the turn, so
            // the probes go out side by side.
            let size = await sizeBeforeBody(of: item, cached: cached, allowance: limits, engine: engine)
            await admission?.waitForTurn(position)
            if let reason = allowance?.admit(bytes: size) {
                admission?.settle(position)
                return deferred(item, reason, cached: cached, attempts: 0)
            }
            // A new body's share is taken: the next asset need not wait for its
            // head. A revalidation's waits: a 304 gives its share back.
            if size != nil, cached == nil { admission?.settle(position) }
        }

        var download = store.temporaryFile("download")
        // A cached copy is revalidated whole; only a download from scratch resumes a partial.
        let resume = revalidating == nil ? store.takePartial(for: item.url, into: download) : nil
        if revalidating != nil { store.dropPartial(for: item.url) }
        var delta = DeltaNote()
        var answered: TransferResult?
        if let base = revalidating ?? deltaBase, allowance == nil {
            switch await deltaRefresh(item, base, conditional: revalidating != nil, engine: engine, into: download) {
            case .notTried:
                break
            case .answered(var answer, let body, let fallback, let stats):
                answer.attempts = stats.requests
                answered = answer
                download = body
                delta = DeltaNote(stats: fallback == nil ? nil : stats, fallback: fallback)
            case .rebuilt(let rebuilt, let result, let stats):
                answered = result
                download = rebuilt
                delta = DeltaNote(stats: stats, fallback: nil)
            case .fallback(let reason, let stats):
                delta = DeltaNote(stats: stats, fallback: reason)
            }
        }
        var answer: TransferResult
        if let answered {
            answer = answered
        } else {
            var request = TransferRequest(
                url: item.url.string, location: download, priority: item.priority,
                headers: revalidating?.conditionalHeaders ?? [], resume: resume)
            request.observer = observer
            request.allowance = allowance
            answer = await engine.fetch(request)
            // A fallback's requests are the delta's and this one's.
            answer.attempts += delta.stats?.requests ?? 0
        }
        let result = answer

        if let revalidating, result.status == 304 {
            // Usually there is no file: a 304 has no body. Looking first spares an
            // unlink that would take tmp/'s lock from the commits renaming out of it.
            if download.directory.status(download.name) != nil { download.directory.unlink(download.name) }
            let ref = revalidating.revalidated(by: result.headers, at: now)
            if ref.onlyFetchTimeDiffers(from: revalidating.ref) {
                // Nothing the next run reads would change: without a freshness
                // lifetime the time of the fetch is never consulted. Only the LRU
                // clock moves, as for a fresh copy.
                store.touchRef(for: item.url)
                return records(item, .revalidated, revalidating, attempts: result.attempts)
            }
            let written = await commits.commit(PendingCommit(url: item.url, sha256: ref.object, ref: ref), isUrgent: item.isUrgent)
            if case .failure(let error) = written {
                return item.failed(AssetFailure(.storage, error.description), attempts: result.attempts, finishedMs: elapsedMs())
            }
            return records(item, .revalidated, revalidating, attempts: result.attempts)
        }
        if let failure = result.failure {
            if let resumable = result.resumable {
                store.savePartial(download, for: item.url, resume: resumable)
            } else {
                download.directory.unlink(download.name)
            }
            if let reason = result.deferral { return deferred(item, reason, cached: cached, attempts: result.attempts) }
            return delta.note(on: failed(item, failure, result: result, cached: cached))
        }
        // The tree the new ZIP may link unchanged files from: the one it replaces.
        let previous = cached?.path(as: .archive) != nil ? cached?.ref.object : nil
        let checked = await validation.run { [validator, download] in validator.validate(item, download: download, result: result, previous: previous) }
        var committed: Result<Validated, AssetFailure>?
        if let valid = checked.valid {
            let entry = validator.commitEntry(for: valid)
            let written = await commits.commit(entry, isUrgent: item.isUrgent)
            committed = written.map { valid }.mapError { AssetFailure(.storage, $0.description) }
        }
        let finished = elapsedMs()
        return delta.note(on: item.kinds.map { kind in
            if let failure = checked.failures[kind] {
                return .failed(item.url, kind, failure, attempts: result.attempts, finishedMs: finished)
            }
            switch committed {
            case .success(let valid)?:
                var record = AssetRecord(
                    url: item.url, kind: kind, outcome: .downloaded, sha256: result.sha256, bytes: result.bytes,
                    path: validator.localPath(valid, as: kind), attempts: result.attempts, failure: nil, finishedMs: finished)
                if kind == .archive { record.unpack = valid.unpack }
                return record
            case .failure(let failure)?:
                return .failed(item.url, kind, failure, attempts: result.attempts, finishedMs: finished)
            case nil:
                preconditionFailure("validate gives every kind that did not pass its failure, and commits follow a pass")
            }
        })
    }

    typealias Validated = AssetValidator.Validated

    /// A transient failure keeps the cached copy in use (`stale`) for the kinds
    /// it serves; a 404 or 410 says the asset is gone, so its ref is dropped.
    private func failed(_ item: AssetPlan.Item, _ failure: AssetFailure, result: TransferResult, cached: CachedCopy?) -> [AssetRecord] {
        if let cached {
            if result.status == 404 || result.status == 410 {
                store.dropRef(for: item.url)
            } else if failure.isTransient(status: result.status) {
                store.touchRef(for: item.url)
                return records(item, .stale, cached, attempts: result.attempts, failure: failure)
            }
        }
        return item.failed(failure, attempts: result.attempts, finishedMs: elapsedMs())
    }

    /// What a download limit allows this asset: nil when none applies to it.
    private func downloadAllowance(for item: AssetPlan.Item, position: Int) -> DownloadAllowance? {
        let cap = meteredLink.flatMap { $0.isMetered && !item.isUrgent ? $0.maxAssetBytes : nil }
        guard budget != nil || cap != nil else { return nil }
        var headKnown: (@Sendable () -> Void)?
        if let admission { headKnown = { admission.settle(position) } }
        return DownloadAllowance(budget: budget, maxAssetBytes: cap, headKnown: headKnown)
    }

    /// Left for a later run by `reason`: a cached copy stays in use as it is,
    /// unasked (`cached`), for the kinds it serves; the others are `deferred`.
    private func deferred(_ item: AssetPlan.Item, _ reason: DiscardReason, cached: CachedCopy?, attempts: Int) -> [AssetRecord] {
        guard let cached else {
            return item.kinds.map { AssetRecord.deferred(item.url, $0, reason, attempts: attempts, finishedMs: elapsedMs()) }
        }
        store.touchRef(for: item.url)
        return records(item, .cached, cached, attempts: attempts).map { record in
            record.path == nil ? AssetRecord.deferred(item.url, record.kind, reason, attempts: attempts, finishedMs: record.finishedMs) : record
        }
    }

    /// `outcome` for every kind the copy serves. A kind it does not serve (its
    /// bytes were checked as other kinds only) has no copy: with `failure`, the
    /// request's, that is why; else, as for `plan`, it is not in the cache.
    private func records(
        _ item: AssetPlan.Item, _ outcome: AssetOutcome, _ cached: CachedCopy, attempts: Int = 0, failure: AssetFailure? = nil
    ) -> [AssetRecord] {
        let finished = elapsedMs()
        return item.kinds.map { kind in
            guard let path = cached.path(as: kind) else {
                return .failed(item.url, kind, failure ?? cached.missing(item.url, as: kind), attempts: attempts, finishedMs: finished)
            }
            return AssetRecord(
                url: item.url, kind: kind, outcome: outcome, sha256: cached.ref.object, bytes: cached.ref.bytes,
                path: path, attempts: attempts, failure: failure, finishedMs: finished,
                staleSince: outcome == .stale ? cached.ref.fetchedAt : nil)
        }
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
