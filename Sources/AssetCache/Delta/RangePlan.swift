/// The range requests that fetch what the cached copy does not hold: every
/// byte before the tail that no reused entry supplies, with ranges closer
/// than ``coalesceGap`` merged (a range costs framing and, on a server of one
/// range a request, a round trip: a few KiB are cheaper fetched), asked
/// ``ladder``'s first number at a time, fewer when the server refuses (as zchunk does).
enum RangePlan {
    static let coalesceGap: Int64 = 4096
    /// Ranges a request, from the most down to one: what a server that answers
    /// fewer than asked, refuses multipart (416 or the whole file) or caps them
    /// (nginx's max_ranges, Cloudflare's 300) gets next.
    static let ladder = [255, 127, 7, 2, 1]
    /// A delta whose bytes pass this share of the full size is not worth it.
    static let maxCostRatio = 1.1

    /// The ranges of `0..<tailStart` not in `reused` (sorted, disjoint), merged
    /// across gaps under ``coalesceGap``.
    static func ranges(before tailStart: Int64, reused: [EntryComparison.Reuse]) -> [Range<Int64>] {
        var needed: [Range<Int64>] = []
        var position: Int64 = 0
        for reuse in reused where reuse.newRange.lowerBound < tailStart {
            if reuse.newRange.lowerBound > position { append(position..<reuse.newRange.lowerBound, to: &needed) }
            position = max(position, reuse.newRange.upperBound)
        }
        if position < tailStart { append(position..<tailStart, to: &needed) }
        return needed
    }

    /// The same ranges less what `fetched` (sorted, disjoint) already holds:
    /// a second rebuild's, after the first (``DeltaRefresh``).
    static func ranges(before tailStart: Int64, reused: [EntryComparison.Reuse], excluding fetched: [Range<Int64>]) -> [Range<Int64>] {
        ranges(before: tailStart, reused: reused).flatMap { range in
            var left: [Range<Int64>] = []
            var position = range.lowerBound
            for piece in fetched where piece.upperBound > position && piece.lowerBound < range.upperBound {
                if piece.lowerBound > position { left.append(position..<piece.lowerBound) }
                position = max(position, piece.upperBound)
            }
            if position < range.upperBound { left.append(position..<range.upperBound) }
            return left
        }
    }

    /// Bytes in `ranges`.
    static func length(_ ranges: [Range<Int64>]) -> Int64 {
        ranges.reduce(Int64(0)) { $0 + ($1.upperBound - $1.lowerBound) }
    }

    private static func append(_ range: Range<Int64>, to ranges: inout [Range<Int64>]) {
        if let last = ranges.last, range.lowerBound - last.upperBound < coalesceGap {
            ranges[ranges.count - 1] = last.lowerBound..<range.upperBound
        } else {
            ranges.append(range)
        }
    }

    /// Whether `bytes` moved for a file of `fileSize` stays within the cost a
    /// delta may have.
    static func isAffordable(_ bytes: Int64, fileSize: Int64) -> Bool {
        Double(bytes) <= Double(fileSize) * maxCostRatio
    }

    /// The `Range` header value for `ranges`.
    static func header(_ ranges: [Range<Int64>]) -> String {
        "Range: bytes=" + ranges.map { "\($0.lowerBound)-\($0.upperBound - 1)" }.joined(separator: ",")
    }
}
