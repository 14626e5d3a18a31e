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
///
/// ``process(_:position:)`` reads as the stages, in this file's order: look up,
/// admit, fetch the body, validate, commit.
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
    /// `--min-free`: nil offline, or where the file system cannot say what is free.
    var space: RunSpace?
    /// `prefetch publish --assets-from`: where bodies come from instead of the engine.
    var mirror: LocalMirror.Source?
    /// Told of every body before its checks (``PrefetchOptions/bodyArrived``).
    var bodyArrived: (@Sendable (AssetURL, String) -> Void)?

    /// One record per kind of `item`, in its kinds' order. `position` is the
    /// item's in the plan: under a byte budget, assets claim it in that order.
    func process(_ item: AssetPlan.Item, position: Int) async -> [AssetRecord] {
        let engine: TransferEngine
        let basis: FetchBasis
        switch lookUp(item) {
        case .done(let records): return records
        case .fetch(let found, let against):
            engine = found
            basis = against
        }
        let claim = spaceClaim(for: item, position: position)
        // What the asset was granted and did not write goes back, however it ends.
        defer { claim?.releaseUnwritten() }
        let allowance: DownloadAllowance?
        switch await admit(item, position: position, basis: basis, engine: engine, claim: claim) {
        case .deferred(let records): return records
        case .admitted(let granted): allowance = granted
        }
        var fetched = await fetchBody(item, basis: basis, allowance: allowance, claim: claim, engine: engine)
        // Stopped short of the floor: once more, resuming, if eviction made room.
        // Not under a download limit, whose allowance the first transfer settled.
        if case .deferred(.storageLow, _) = fetched, allowance == nil, await makeRoom(for: claim) {
            fetched = await fetchBody(item, basis: basis, allowance: nil, claim: claim, engine: engine)
        }
        switch fetched {
        case .notModified(let revalidating, let result):
            return await keepRevalidated(item, revalidating, by: result)
        case .deferred(let reason, let attempts):
            return deferred(item, reason, cached: basis.cached, attempts: attempts)
        case .failed(let failure, let result, let delta):
            return delta.stamped(on: failed(item, failure, result: result, cached: basis.cached))
        case .body(let download, let result, let delta):
            bodyArrived?(item.url, result.sha256)
            // Between its download and its commit, no eviction removes an
            // object of the same bytes that the validation or the commit found.
            space?.roomMaker.holds.hold(result.sha256)
            defer { space?.roomMaker.holds.release(result.sha256) }
            claim?.bodyLanded(result.bytes - (result.resumedFrom ?? 0))
            let checked = await validateMakingRoom(item, download: download, result: result, replacing: basis.cached, claim: claim)
            if checked.valid == nil, checked.lacksSpace {
                return deferred(item, .storageLow, cached: basis.cached, attempts: result.attempts)
            }
            return delta.stamped(on: await commit(item, checked, result: result, cached: basis.cached))
        }
    }

    // MARK: Look up

    /// What the cache holds that a fetch goes against.
    struct FetchBasis {
        /// The URL's copy, for the kinds it serves: kept in use when the fetch
        /// is deferred or fails transiently. Nil when absent, or refused by the pin.
        var cached: CachedCopy?
        /// `cached` when it was checked as every kind this run needs: its
        /// validators are sent, and a 304 keeps it.
        var revalidating: CachedCopy?
        /// A copy the pin refuses: it may still hold most of the pinned ZIP's
        /// bytes, for a delta to start from.
        var deltaBase: CachedCopy?
    }

    enum Lookup {
        /// Answered without a request: a copy in use, or a failure.
        case done([AssetRecord])
        /// To be fetched with the engine, against what the cache holds.
        case fetch(TransferEngine, FetchBasis)
    }

    /// The integrity pin, then (offline, no engine) the cache alone, then freshness.
    private func lookUp(_ item: AssetPlan.Item) -> Lookup {
        var cached = CachedCopy(store: store, url: item.url)
        var deltaBase: CachedCopy?
        if let copy = cached, let pin = validator.integrity[item.url] {
            if let failure = copy.integrityFailure(pin: pin, url: item.url) {
                // Not these bytes, whatever their freshness or a 304 says. With
                // no network that is the answer; with one, the URL is fetched
                // afresh (no validators: a 304 would only vouch for the bytes
                // refused), and only bytes matching the pin replace the ref.
                guard engine != nil else { return .done(item.failed(failure, attempts: 0, finishedMs: elapsedMs())) }
                deltaBase = copy
                cached = nil
            } else if copy.kinds.isSuperset(of: item.kinds) {
                // The publisher vouches for these very bytes: nothing to ask a server.
                store.touchRef(for: item.url, now: now)
                return .done(records(item, engine == nil ? .cached : .fresh, copy))
            }
        }
        guard let engine else {
            guard let cached else {
                return .done(item.failed(AssetFailure(.offlineMiss, "\(item.url) is not in the cache"), attempts: 0, finishedMs: elapsedMs()))
            }
            store.touchRef(for: item.url, now: now)
            return .done(records(item, .cached, cached))
        }
        // A copy that was not checked as every kind this run needs is not
        // revalidated: a 304 would bring no bytes to check as the others. The URL
        // is fetched whole and checked as each kind; the copy is only fallen
        // back on if that fails transiently.
        let revalidating = cached.flatMap { $0.kinds.isSuperset(of: item.kinds) ? $0 : nil }
        if let revalidating, revalidating.isFresh(at: now) {
            store.touchRef(for: item.url, now: now)
            return .done(records(item, .fresh, revalidating))
        }
        return .fetch(engine, FetchBasis(cached: cached, revalidating: revalidating, deltaBase: deltaBase))
    }

    // MARK: Admit

    enum Admission {
        /// To be fetched within `allowance`; nil when no download limit applies.
        case admitted(DownloadAllowance?)
        /// Left for a later run by a download limit.
        case deferred([AssetRecord])
    }

    /// Under `--max-download-bytes` or a metered link: the asset's size before
    /// its body, then its turn in plan order to claim the budget. Near the
    /// free-space floor (``RunSpace/isNear``), a new asset that is not urgent
    /// learns its size the same way and waits for the urgent ones to claim,
    /// and it, or a ZIP a delta would rebuild (its cached size: the rebuild is
    /// written outside any transfer), claims its room (``claimRoom(_:bytes:)``).
    private func admit(
        _ item: AssetPlan.Item, position: Int, basis: FetchBasis, engine: TransferEngine, claim: SpaceClaim?
    ) async -> Admission {
        var allowance = downloadAllowance(for: item, position: position)
        let nearFloor = claim != nil && space?.isNear == true
        let waitsForUrgent = nearFloor && !item.isUrgent && basis.cached == nil
        let claimsFirst = waitsForUrgent || nearFloor && deltaRefresh(item, basis: basis, allowance: allowance, engine: engine) != nil
        guard allowance != nil || claimsFirst else { return .admitted(nil) }
        // The size the ref remembers (a revalidation may bring a new body of
        // about that size), else what a HEAD says; asked before the turn, so
        // the probes go out side by side.
        let size = await sizeBeforeBody(of: item, cached: basis.cached, budget: allowance?.budget, engine: engine)
        await admission?.waitForTurn(position)
        if waitsForUrgent { await space?.urgentFirst.wait() }
        if let reason = allowance?.admit(bytes: size) {
            admission?.settle(position)
            return .deferred(deferred(item, reason, cached: basis.cached, attempts: 0))
        }
        if claimsFirst, let claim, let size, await !claimRoom(claim, bytes: claim.floor.onDisk(size, files: 2)) {
            allowance?.settle()
            return .deferred(deferred(item, .storageLow, cached: basis.cached, attempts: 0))
        }
        // A new body's share is taken: the next asset need not wait for its
        // head. A revalidation's waits: a 304 gives its share back.
        if size != nil, basis.cached == nil { admission?.settle(position) }
        return .admitted(allowance)
    }

    // MARK: Fetch the body

    enum BodyFetch {
        /// A 304: the copy revalidated stays, its file untouched.
        case notModified(CachedCopy, TransferResult)
        /// Stopped by a download limit; its partial body kept for resume.
        case deferred(DiscardReason, attempts: Int)
        /// No body to check: the download (or its partial, for resume) is dealt with.
        case failed(AssetFailure, TransferResult, DeltaSummary)
        /// A body at `FileLocation`, to validate.
        case body(FileLocation, TransferResult, DeltaSummary)
    }

    /// By delta when one applies (``deltaRefresh(_:basis:allowance:engine:)``),
    /// which makes the full download itself if it gives way; else whole,
    /// conditional on the copy revalidated, resuming a partial download.
    private func fetchBody(
        _ item: AssetPlan.Item, basis: FetchBasis, allowance: DownloadAllowance?, claim: SpaceClaim?, engine: TransferEngine
    ) async -> BodyFetch {
        let download = store.temporaryFile("download")
        // A cached copy is revalidated whole; only a download from scratch resumes a partial.
        let resume = basis.revalidating == nil ? store.takePartial(for: item.url, into: download) : nil
        if basis.revalidating != nil { store.dropPartial(for: item.url) }
        var request = TransferRequest(
            url: item.url.string, location: download, priority: item.priority,
            headers: basis.revalidating?.conditionalHeaders ?? [], resume: resume)
        request.observer = observer
        request.allowance = allowance
        request.space = claim
        let answer: FetchAnswer
        if let mirror {
            answer = FetchAnswer(result: mirror.fetch(request), body: download)
        } else if let refresh = deltaRefresh(item, basis: basis, allowance: allowance, engine: engine) {
            answer = await refresh.fetch(orWhole: request)
        } else {
            answer = FetchAnswer(result: await engine.fetch(request), body: download)
        }
        let (result, body) = (answer.result, answer.body)
        if let revalidating = basis.revalidating, result.status == 304 {
            // Usually there is no file: a 304 has no body. Looking first spares an
            // unlink that would take tmp/'s lock from the commits renaming out of it.
            if body.directory.status(body.name) != nil { body.directory.unlink(body.name) }
            return .notModified(revalidating, result)
        }
        if let failure = result.failure {
            if let resumable = result.resumable {
                store.savePartial(body, for: item.url, resume: resumable)
            } else {
                body.directory.unlink(body.name)
            }
            if let reason = result.deferral { return .deferred(reason, attempts: result.attempts) }
            return .failed(failure, result, answer.delta)
        }
        return .body(body, result, answer.delta)
    }

    // MARK: Validate

    /// The body checked as each kind, on the validation pool. `replacing`: the
    /// URL's cached copy, whose tree the new ZIP may link unchanged files from.
    func validate(
        _ item: AssetPlan.Item, download: FileLocation, result: TransferResult, replacing cached: CachedCopy?, claim: SpaceClaim?
    ) async -> AssetValidator.Checked {
        let previous = cached?.path(as: .archive) != nil ? cached?.ref.object : nil
        return await validation.run { [validator, download] in
            validator.validate(item, download: download, result: result, previous: previous, space: claim)
        }
    }

    // MARK: Commit

    /// What passed, made durable and visible by the group commit; a record per
    /// kind: downloaded, or why it failed its checks or the commit.
    /// A full disk at the commit defers the asset, `cached` kept in use.
    private func commit(
        _ item: AssetPlan.Item, _ checked: AssetValidator.Checked, result: TransferResult, cached: CachedCopy?
    ) async -> [AssetRecord] {
        var committed: Result<AssetValidator.Validated, AssetFailure>?
        if let valid = checked.valid {
            let written = await commits.commit(validator.commitEntry(for: valid), isUrgent: item.isUrgent)
            if case .failure(.noSpace) = written { return deferred(item, .storageLow, cached: cached, attempts: result.attempts) }
            committed = written.map { valid }.mapError { AssetFailure(.storage, $0.description) }
        }
        let finished = elapsedMs()
        return item.kinds.map { kind in
            if let failure = checked.failures[kind] {
                // A kind that lacked room while another passed: a later run has it.
                if failure.lacksSpace { return .deferred(item.url, kind, .storageLow, attempts: result.attempts, finishedMs: finished) }
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
        }
    }

    /// A copy a 304 revalidated: its ref rewritten when the validators
    /// changed; when only its freshness did, that is remembered with the run's
    /// state instead, one write for every such asset (``Revalidation``).
    private func keepRevalidated(_ item: AssetPlan.Item, _ revalidating: CachedCopy, by result: TransferResult) async -> [AssetRecord] {
        let ref = revalidating.revalidated(by: result.headers, at: now)
        if ref.onlyFreshnessDiffers(from: revalidating.ref) {
            // Without a freshness lifetime, before or now, the time of the
            // fetch is never consulted: nothing to remember.
            if !ref.onlyFetchTimeDiffers(from: revalidating.ref) {
                store.recordRevalidation(for: item.url, of: revalidating.ref, at: now, maxAge: ref.maxAge ?? 0)
            }
            // The LRU clock moves, as for a fresh copy.
            store.touchRef(for: item.url, now: now)
            return records(item, .revalidated, revalidating, attempts: result.attempts)
        }
        let written = await commits.commit(PendingCommit(url: item.url, sha256: ref.object, ref: ref), isUrgent: item.isUrgent)
        // The old ref stays, and names the same bytes: only its freshness is not recorded.
        if case .failure(.noSpace) = written { return records(item, .cached, revalidating, attempts: result.attempts) }
        if case .failure(let error) = written {
            return item.failed(AssetFailure(.storage, error.description), attempts: result.attempts, finishedMs: elapsedMs())
        }
        return records(item, .revalidated, revalidating, attempts: result.attempts)
    }

    // MARK: Records

    /// A transient failure keeps the cached copy in use (`stale`) for the kinds
    /// it serves; a 404 or 410 says the asset is gone, so its ref is dropped.
    private func failed(_ item: AssetPlan.Item, _ failure: AssetFailure, result: TransferResult, cached: CachedCopy?) -> [AssetRecord] {
        if let cached {
            if result.status == 404 || result.status == 410 {
                store.dropRef(for: item.url)
            } else if failure.isTransient(status: result.status) {
                store.touchRef(for: item.url, now: now)
                return records(item, .stale, cached, attempts: result.attempts, failure: failure)
            }
        }
        return item.failed(failure, attempts: result.attempts, finishedMs: elapsedMs())
    }

    /// Left for a later run by `reason`: a cached copy stays in use as it is,
    /// unasked (`cached`), for the kinds it serves; the others are `deferred`.
    func deferred(_ item: AssetPlan.Item, _ reason: DiscardReason, cached: CachedCopy?, attempts: Int) -> [AssetRecord] {
        guard let cached else {
            return item.kinds.map { AssetRecord.deferred(item.url, $0, reason, attempts: attempts, finishedMs: elapsedMs()) }
        }
        store.touchRef(for: item.url, now: now)
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
