#if canImport(Glibc)
import Glibc
#endif

extension DeltaRefresh {
    /// What the tail said, and what of it the cached copy holds.
    struct Rebuilding {
        var fileSize: Int64
        var tailStart: Int64
        var end: ZipCentralDirectory.End
        var records: [ZipCentralDirectory.Record]
        var reused: [EntryComparison.Reuse]
        var validator: String
        var proof: Proof
    }

    /// What the rebuilt bytes are checked against before anything is
    /// committed (issue 37): the manifest's pin, else a whole-file digest the
    /// server sent with the tail; neither, and they rest on CRC-32s.
    struct Proof {
        var pin: [UInt8]?
        var digest: ServedDigest?

        var evidence: DeltaEvidence { pin != nil ? .pin : digest != nil ? .digest : .crc32 }
        /// Whether the whole file's bytes are checked: only then may cached
        /// local headers be reused, the check catching one that differs.
        var provesBytes: Bool { evidence != .crc32 }
        /// The digest to compute besides the SHA-256: a pin decides alone.
        var algorithm: ServedDigest.Algorithm? { pin == nil ? digest?.algorithm : nil }

        /// Why bytes of these digests are refused; nil when they pass.
        func refusal(sha256: [UInt8], own: [UInt8]?) -> DeltaFallback? {
            if let pin { return pin == sha256 ? nil : .integrityMismatch }
            if let digest { return digest.matches(sha256: sha256, own: own) ? nil : .digestMismatch }
            return nil
        }
    }

    /// The range answers so far: their bodies (files in `tmp/`), and where in
    /// them each part fetched lies.
    struct Fetched {
        var bodies: [FileLocation] = []
        var parts: [(range: Range<Int64>, body: Int, offset: Int64)] = []

        /// The ranges fetched, sorted.
        var ranges: [Range<Int64>] { parts.map(\.range).sorted { $0.lowerBound < $1.lowerBound } }
    }

    /// The other bytes fetched, then the file rebuilt and checked. When the
    /// check of a rebuild that reused cached local headers fails, those local
    /// headers are fetched (one more ranged request, ladder allowing) and the
    /// file rebuilt once more: an entry's central record can be the cached one
    /// while its local header is not. A second failure is one full download.
    func rebuild(
        _ plan: Rebuilding, tail: TransferResult, download: FileLocation, oldFD: Int32, stats: DeltaStats
    ) async -> DeltaOutcome {
        var stats = stats
        var fetched = Fetched()
        defer { for body in fetched.bodies { body.directory.unlink(body.name) } }
        let first = RangePlan.ranges(before: plan.tailStart, reused: plan.reused)
        guard RangePlan.length(first) < plan.tailStart else { return fallback(.tooCostly, stats, download) }
        if let stopped = await fetch(first, plan: plan, into: &fetched, stats: &stats, download: download) { return stopped }
        var outcome = assemble(plan, tail: tail, download: download, oldFD: oldFD, fetched: fetched, stats: stats)
        if case .fallback(let reason, _) = outcome, reason == .integrityMismatch || reason == .digestMismatch,
           plan.reused.contains(where: \.includesLocalHeader) {
            var second = plan
            second.reused = plan.reused.compactMap(\.dataOnly)
            let headers = RangePlan.ranges(before: plan.tailStart, reused: second.reused, excluding: fetched.ranges)
            if let stopped = await fetch(headers, plan: second, into: &fetched, stats: &stats, download: download) { return stopped }
            outcome = assemble(second, tail: tail, download: download, oldFD: oldFD, fetched: fetched, stats: stats)
        }
        if case .fallback(let reason, let stats) = outcome { return fallback(reason, stats, download) }
        return outcome
    }

    /// `pending` fetched into `fetched`, back off by back off; nil when all
    /// came, else how the refresh ends.
    private func fetch(
        _ pending: [Range<Int64>], plan: Rebuilding, into fetched: inout Fetched, stats: inout DeltaStats, download: FileLocation
    ) async -> DeltaOutcome? {
        var pending = pending
        guard RangePlan.isAffordable(stats.fetchedBytes + RangePlan.length(pending), fileSize: plan.fileSize) else {
            return fallback(.tooCostly, stats, download)
        }
        let fetch = RangeFetch(
            engine: engine, store: store, url: url.string, priority: priority, observer: observer, validator: plan.validator,
            fileSize: plan.fileSize)
        var step = 0
        while !pending.isEmpty {
            guard stats.requests < Self.maxRequests else { return fallback(.tooCostly, stats, download) }
            let batch = Array(pending.prefix(RangePlan.ladder[step]))
            let (answer, requests, bytes) = await fetch.fetch(batch)
            stats.requests += requests
            stats.fetchedBytes += bytes
            switch answer {
            case .parts(let body, let parts):
                fetched.bodies.append(body)
                for part in parts { fetched.parts.append((part.range, fetched.bodies.count - 1, Int64(part.bodyOffset))) }
                let answered = Set(parts.map(\.range.lowerBound))
                pending.removeAll { answered.contains($0.lowerBound) }
                // Fewer parts than asked: a server of one range a request, or a cap.
                if parts.count < batch.count { step = Self.nextStep(after: step, below: batch.count) ?? step }
            case .refused:
                guard let next = Self.nextStep(after: step, below: batch.count) else { return fallback(.rangesRefused, stats, download) }
                step = next
            case .whole(let body, let result):
                // The file changed under If-Range, or the server ignores ranges:
                // this is the full download, not a reason to ask for it again.
                download.directory.unlink(download.name)
                return .answered(result, body: body, .wholeFile, stats)
            case .failed(let reason):
                return fallback(reason, stats, download)
            }
            guard RangePlan.isAffordable(stats.fetchedBytes + RangePlan.length(pending), fileSize: plan.fileSize) else {
                return fallback(.tooCostly, stats, download)
            }
        }
        return nil
    }

    /// The rung of ``RangePlan/ladder`` after `step` that asks for fewer than
    /// `count` ranges; nil when there is none (one a request was refused).
    static func nextStep(after step: Int, below count: Int) -> Int? {
        RangePlan.ladder.indices.first { $0 > step && RangePlan.ladder[$0] < count }
    }

    /// The file rebuilt from the tail, the range answers and the cached copy,
    /// and checked. A failure is a ``DeltaOutcome/fallback(_:_:)`` that leaves
    /// the tail in `download`, for ``rebuild(_:tail:download:oldFD:stats:)``
    /// to try again from.
    private func assemble(
        _ plan: Rebuilding, tail: TransferResult, download: FileLocation, oldFD: Int32, fetched: Fetched, stats: DeltaStats
    ) -> DeltaOutcome {
        var stats = stats
        var descriptors: [Int32] = []
        defer { for fd in descriptors { close(fd) } }
        for location in [download] + fetched.bodies {
            guard let fd = try? location.directory.openFile(location.name, O_RDONLY) else { return .fallback(.requestFailed, stats) }
            descriptors.append(fd)
        }
        var pieces = [ZipRebuild.Piece(range: plan.tailStart..<plan.fileSize, source: descriptors[0], offset: 0)]
        pieces += fetched.parts.map { ZipRebuild.Piece(range: $0.range, source: descriptors[$0.body + 1], offset: $0.offset) }
        // What no answer covers comes from the cached copy: each gap lies in
        // reused entries, several in a row where whole spans are reused.
        var position: Int64 = 0
        stats.reusedBytes = 0
        for piece in pieces.sorted(by: { $0.range.lowerBound < $1.range.lowerBound }) {
            if piece.range.lowerBound > position {
                let gap = position..<piece.range.lowerBound
                guard let cachedPieces = ZipRebuild.pieces(of: gap, from: plan.reused, source: oldFD) else {
                    return .fallback(.rebuildMismatch, stats)
                }
                pieces += cachedPieces
                stats.reusedBytes += gap.upperBound - gap.lowerBound
            }
            position = max(position, piece.range.upperBound)
        }
        let rebuilt = store.temporaryFile("delta")
        guard let digests = ZipRebuild.write(pieces, fileSize: plan.fileSize, to: rebuilt, also: plan.proof.algorithm),
              ZipRebuild.matches(rebuilt, end: plan.end, records: plan.records, reused: plan.reused)
        else {
            rebuilt.directory.unlink(rebuilt.name)
            return .fallback(.rebuildMismatch, stats)
        }
        if let refusal = plan.proof.refusal(sha256: digests.sha256, own: digests.own) {
            rebuilt.directory.unlink(rebuilt.name)
            return .fallback(refusal, stats)
        }
        download.directory.unlink(download.name)
        var result = tail
        // Its 206 answers say the server takes ranges, whether or not they
        // repeat Accept-Ranges (nginx sends it with a 200 only): the next
        // change is fetched by delta too.
        result.headers.fields["accept-ranges"] = "bytes"
        result.status = 200
        result.bytes = plan.fileSize
        result.sha256 = CacheStore.hex(digests.sha256)
        result.attempts = stats.requests
        return .rebuilt(rebuilt, result, stats, plan.proof.evidence)
    }

    /// The tail goes; the pipeline downloads the file whole.
    func fallback(_ reason: DeltaFallback, _ stats: DeltaStats, _ download: FileLocation) -> DeltaOutcome {
        if download.directory.status(download.name) != nil { download.directory.unlink(download.name) }
        return .fallback(reason, stats)
    }

    /// The cached ZIP's object, opened without following a link.
    func openCachedObject() -> Int32? {
        guard let shard = store.shard(of: cached.ref.object, in: store.objects) else { return nil }
        return try? shard.openFile(cached.ref.object, O_RDONLY)
    }
}
