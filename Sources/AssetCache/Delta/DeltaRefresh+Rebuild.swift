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
    }

    /// The other bytes fetched, back off by back off, then the file rebuilt and checked.
    func rebuild(
        _ plan: Rebuilding, tail: TransferResult, download: FileLocation, oldFD: Int32, stats: DeltaStats
    ) async -> DeltaOutcome {
        var stats = stats
        var pending = RangePlan.ranges(before: plan.tailStart, reused: plan.reused)
        let planned = pending.reduce(Int64(0)) { $0 + ($1.upperBound - $1.lowerBound) }
        guard planned < plan.tailStart, RangePlan.isAffordable(stats.fetchedBytes + planned, fileSize: plan.fileSize) else {
            return fallback(.tooCostly, stats, download)
        }
        let fetch = RangeFetch(
            engine: engine, store: store, url: url.string, priority: priority, observer: observer, validator: plan.validator,
            fileSize: plan.fileSize)
        var bodies: [FileLocation] = []
        var fetched: [(range: Range<Int64>, body: Int, offset: Int64)] = []
        defer { for body in bodies { body.directory.unlink(body.name) } }
        var step = 0
        while !pending.isEmpty {
            guard stats.requests < Self.maxRequests else { return fallback(.tooCostly, stats, download) }
            let batch = Array(pending.prefix(RangePlan.ladder[step]))
            let (answer, requests, bytes) = await fetch.fetch(batch)
            stats.requests += requests
            stats.fetchedBytes += bytes
            switch answer {
            case .parts(let body, let parts):
                bodies.append(body)
                for part in parts { fetched.append((part.range, bodies.count - 1, Int64(part.bodyOffset))) }
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
            let left = pending.reduce(Int64(0)) { $0 + ($1.upperBound - $1.lowerBound) }
            guard RangePlan.isAffordable(stats.fetchedBytes + left, fileSize: plan.fileSize) else {
                return fallback(.tooCostly, stats, download)
            }
        }
        return assemble(plan, tail: tail, download: download, oldFD: oldFD, bodies: bodies, fetched: fetched, stats: stats)
    }

    /// The rung of ``RangePlan/ladder`` after `step` that asks for fewer than
    /// `count` ranges; nil when there is none (one a request was refused).
    static func nextStep(after step: Int, below count: Int) -> Int? {
        RangePlan.ladder.indices.first { $0 > step && RangePlan.ladder[$0] < count }
    }

    private func assemble(
        _ plan: Rebuilding, tail: TransferResult, download: FileLocation, oldFD: Int32, bodies: [FileLocation],
        fetched: [(range: Range<Int64>, body: Int, offset: Int64)], stats: DeltaStats
    ) -> DeltaOutcome {
        var stats = stats
        var descriptors: [Int32] = []
        defer { for fd in descriptors { close(fd) } }
        for location in [download] + bodies {
            guard let fd = try? location.directory.openFile(location.name, O_RDONLY) else {
                return fallback(.requestFailed, stats, download)
            }
            descriptors.append(fd)
        }
        var pieces = [ZipRebuild.Piece(range: plan.tailStart..<plan.fileSize, source: descriptors[0], offset: 0)]
        pieces += fetched.map { ZipRebuild.Piece(range: $0.range, source: descriptors[$0.body + 1], offset: $0.offset) }
        // What no answer covers comes from the cached copy: each gap lies in
        // reused entries, several in a row where whole spans are reused.
        var position: Int64 = 0
        for piece in pieces.sorted(by: { $0.range.lowerBound < $1.range.lowerBound }) {
            if piece.range.lowerBound > position {
                let gap = position..<piece.range.lowerBound
                guard let cachedPieces = ZipRebuild.pieces(of: gap, from: plan.reused, source: oldFD) else {
                    return fallback(.rebuildMismatch, stats, download)
                }
                pieces += cachedPieces
                stats.reusedBytes += gap.upperBound - gap.lowerBound
            }
            position = max(position, piece.range.upperBound)
        }
        let rebuilt = store.temporaryFile("delta")
        guard let sha256 = ZipRebuild.write(pieces, fileSize: plan.fileSize, to: rebuilt),
              ZipRebuild.matches(rebuilt, end: plan.end, records: plan.records, reused: plan.reused)
        else {
            rebuilt.directory.unlink(rebuilt.name)
            return fallback(.rebuildMismatch, stats, download)
        }
        if let pin, CacheStore.hex(pin) != sha256 {
            rebuilt.directory.unlink(rebuilt.name)
            return fallback(.integrityMismatch, stats, download)
        }
        download.directory.unlink(download.name)
        var result = tail
        // Its 206 answers say the server takes ranges, whether or not they
        // repeat Accept-Ranges (nginx sends it with a 200 only): the next
        // change is fetched by delta too.
        result.headers.fields["accept-ranges"] = "bytes"
        result.status = 200
        result.bytes = plan.fileSize
        result.sha256 = sha256
        result.attempts = stats.requests
        return .rebuilt(rebuilt, result, stats)
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
