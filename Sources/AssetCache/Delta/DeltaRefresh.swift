#if canImport(Glibc)
import Glibc
#endif

/// A cached ZIP brought up to date by range requests (issue 30, docs/cache-format.md):
/// a conditional request for the tail (`Range: bytes=-N`) that a 304 answers as
/// a revalidation; from a 206, the new central directory compared with the
/// cached copy's (``EntryComparison``); the other bytes fetched by range
/// (``RangePlan``, ``RangeFetch``); the new file rebuilt in `tmp/`
/// (``ZipRebuild``) and checked against the `integrity` pin or the whole-file
/// digest the tail's answer carried (``Proof``). Whatever goes wrong gives a
/// ``DeltaOutcome/fallback(_:_:)``: the refresh then makes the one full
/// download the asset would have had without a delta (``fetch(orWhole:)``).
struct DeltaRefresh {
    let engine: TransferEngine
    let store: CacheStore
    /// The base: its object is the cached ZIP the new one is rebuilt from.
    let cached: CachedCopy
    /// Whether the tail request carries the copy's validators (a 304 then
    /// revalidates it); not for a copy the manifest's pin refuses.
    let conditional: Bool
    let url: AssetURL
    let priority: Int
    let observer: TransferObserver?
    let pin: [UInt8]?
    let maxAssetSize: Int64
    let maxEntries: Int

    /// The tail is the cached copy's central directory and end records and
    /// this much more: a few more entries fit without growing it.
    static let tailSlack: Int64 = 256
    static let maxTail: Int64 = 16 << 20
    /// Range requests a refresh may make (a server of one range a request
    /// needs one per range) before a full download is cheaper.
    static let maxRequests = 512

    /// The refresh, answered as the fetch of `whole` would be: `whole` is the
    /// asset's full download, made here, into the file the tail went to, when
    /// no delta can be tried or the delta gives way.
    func fetch(orWhole whole: TransferRequest) async -> FetchAnswer {
        switch await run(into: whole.location) {
        case .notTried:
            return FetchAnswer(result: await engine.fetch(whole), body: whole.location)
        case .answered(var result, let body, let fallback, let stats):
            // As a plain revalidation's answer: the report names the delta
            // only when it gave way to this whole file.
            result.attempts = stats.requests
            return FetchAnswer(result: result, body: body, delta: DeltaSummary(stats: fallback == nil ? nil : stats, fallback: fallback))
        case .rebuilt(let rebuilt, let result, let stats, let evidence):
            return FetchAnswer(result: result, body: rebuilt, delta: DeltaSummary(stats: stats, evidence: evidence))
        case .fallback(let reason, let stats):
            var result = await engine.fetch(whole)
            // A fallback's requests are the delta's and this one's.
            result.attempts += stats.requests
            return FetchAnswer(result: result, body: whole.location, delta: DeltaSummary(stats: stats, fallback: reason))
        }
    }

    /// `download`: where the tail goes, and a 304's or 200's answer stays.
    private func run(into download: FileLocation) async -> DeltaOutcome {
        guard let oldFD = openCachedObject() else { return .notTried }
        defer { close(oldFD) }
        guard let old = try? ZipCentralDirectory(path: LibC.hasProcFD ? "/proc/self/fd/\(oldFD)" : store.objectPath(cached.ref.object)),
              let oldEnd = try? old.end(), oldEnd.entryCount <= UInt64(maxEntries), let oldRecords = try? old.records(oldEnd)
        else { return .notTried }
        var stats = DeltaStats()
        var tailLength = min(Self.maxTail, Int64(old.fileSize - oldEnd.offset) + Self.tailSlack)
        var validator: String?
        while true {
            // The first asks as a revalidation would; a longer one must be of the same file.
            let condition = validator.map { ["If-Range: \($0)"] } ?? (conditional ? cached.conditionalHeaders : [])
            var request = TransferRequest(
                url: url.string, location: download, priority: priority, headers: condition + ["Range: bytes=-\(tailLength)"])
            request.observer = observer
            request.ranged = TransferRequest.Ranged(maxPartialBytes: tailLength)
            let result = await engine.fetch(request)
            stats.requests += result.attempts
            stats.fetchedBytes += result.bytes
            // A 304, the whole file, or a failure the pipeline handles as any
            // revalidation's (a 5xx keeps the copy, a 404 drops it).
            if result.status == 304 || result.status == 200 || (result.failure != nil && result.status != 206 && result.status != 416) {
                return .answered(result, body: download, result.status == 200 && result.failure == nil ? .wholeFile : nil, stats)
            }
            let tail = readTail(result, length: tailLength, at: download)
            switch tail {
            case .failed(let reason):
                return fallback(reason, stats, download)
            case .whole:
                return .answered(result, body: download, nil, stats)
            case .grow(let length):
                guard validator == nil, let sent = Transfer.strongValidator(of: result.headers) else {
                    return fallback(.tailUnusable, stats, download)
                }
                validator = sent
                tailLength = length
            case .read(let fileSize, let end, let records):
                guard let sent = Transfer.strongValidator(of: result.headers) else { return fallback(.noValidator, stats, download) }
                if let validator, validator != sent { return fallback(.validatorChanged, stats, download) }
                // The answer that says the file changed says what it is now.
                let proof = Proof(pin: pin, digest: ServedDigest.of(result.headers, status: result.status))
                let reused = EntryComparison.reusable(
                    old: old, oldEnd: oldEnd, oldRecords: oldRecords, newRecords: records, newEnd: end, wholeSpans: proof.provesBytes)
                let tailStart = fileSize - result.bytes
                return await rebuild(
                    Rebuilding(
                        fileSize: fileSize, tailStart: tailStart, end: end, records: records, reused: reused, validator: sent, proof: proof),
                    tail: result, download: download, oldFD: oldFD, stats: stats)
            }
        }
    }

    private enum Tail {
        case read(fileSize: Int64, ZipCentralDirectory.End, [ZipCentralDirectory.Record])
        /// The tail is the whole file.
        case whole
        /// The central directory starts before the tail: ask again for this many bytes.
        case grow(Int64)
        case failed(DeltaFallback)
    }

    /// A 206 for the tail: exactly the last bytes of a file of bounded size,
    /// with a central directory the tail holds.
    private func readTail(_ result: TransferResult, length: Int64, at location: FileLocation) -> Tail {
        guard result.failure == nil, result.status == 206 else { return .failed(result.status == 416 ? .rangesRefused : .requestFailed) }
        if result.headers.isEncoded { return .failed(.contentEncoding) }
        guard let bounds = Transfer.parseContentRangeBounds(result.headers["content-range"]), let fileSize = bounds.total,
              fileSize <= maxAssetSize, bounds.end == fileSize - 1, bounds.start == max(0, fileSize - length),
              result.bytes == fileSize - bounds.start
        else { return .failed(.rangeMismatch) }
        if bounds.start == 0 { return .whole }
        let read = location.withStablePath { path -> Tail in
                guard let directory = try? ZipCentralDirectory(tailPath: path, fileSize: UInt64(fileSize)) else {
                    return .failed(.tailUnusable)
                }
                func grown() -> Tail {
                    guard let needed = directory.neededFrom, UInt64(fileSize) - needed <= UInt64(Self.maxTail) else {
                        return .failed(.tailUnusable)
                    }
                    return .grow(fileSize - Int64(needed) + Self.tailSlack)
                }
                guard let end = try? directory.end() else { return grown() }
                guard end.offset >= UInt64(bounds.start) else {
                    guard UInt64(fileSize) - end.offset <= UInt64(Self.maxTail) else { return .failed(.tailUnusable) }
                    return .grow(fileSize - Int64(end.offset))
                }
                guard end.entryCount <= UInt64(maxEntries), let records = try? directory.records(end) else {
                    return .failed(.tailUnusable)
                }
                return .read(fileSize: fileSize, end, records)
        }
        return read ?? .failed(.requestFailed)
    }
}
