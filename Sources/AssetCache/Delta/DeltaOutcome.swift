/// What a delta refresh of one ZIP cost and saved (the report's per-asset
/// `delta`, docs/report.md): body bytes its range requests moved, bytes of the
/// new file taken from the cached copy instead, and the requests it made.
public struct DeltaStats: Sendable, Equatable {
    public var fetchedBytes: Int64 = 0
    public var reusedBytes: Int64 = 0
    public var requests = 0

    public init(fetchedBytes: Int64 = 0, reusedBytes: Int64 = 0, requests: Int = 0) {
        self.fetchedBytes = fetchedBytes
        self.reusedBytes = reusedBytes
        self.requests = requests
    }
}

/// Why a delta refresh gave way to one full download (the report's
/// `delta_fallback`). Raw values are the report's strings.
public enum DeltaFallback: String, Sendable, CaseIterable {
    /// The server answered a range request with the whole file (it ignores
    /// ranges, or the file changed under `If-Range`): that answer was the full download.
    case wholeFile = "whole_file"
    /// The tail's answer had no strong validator to send as `If-Range`.
    case noValidator = "no_validator"
    /// A range answer came with `Content-Encoding`: its bytes are not the file's.
    case contentEncoding = "content_encoding"
    /// A 206 for other bytes than those asked for, or of another file size.
    case rangeMismatch = "range_mismatch"
    /// A `multipart/byteranges` answer that does not parse.
    case multipartInvalid = "multipart_invalid"
    /// A 206 whose validator is not the tail's: the file changed in between.
    case validatorChanged = "validator_changed"
    /// Even one range a request was refused (416, or the whole file each time).
    case rangesRefused = "ranges_refused"
    /// The new central directory is not a ZIP's, or no entry can be reused.
    case tailUnusable = "tail_unusable"
    /// The fetched and reused bytes would cost more than ~1.1× the full download.
    case tooCostly = "too_costly"
    /// The rebuilt file is not the ZIP its central directory describes.
    case rebuildMismatch = "rebuild_mismatch"
    /// The rebuilt bytes' SHA-256 is not the manifest's `integrity` pin, even
    /// with every local header fetched.
    case integrityMismatch = "integrity_mismatch"
    /// The rebuilt bytes are not those of the whole-file digest the server
    /// sent (`Repr-Digest`, `x-goog-hash`), even with every local header
    /// fetched: an entry's data is not what its CRC-32 says (a forged CRC), or
    /// the server's digest is not of its file.
    case digestMismatch = "digest_mismatch"
    /// A range request failed (network, status, size) or a file could not be written.
    case requestFailed = "request_failed"
}

/// What a ZIP rebuilt by delta was checked against before it was committed
/// (issue 37; the report's `delta_evidence`). Raw values are the report's strings.
public enum DeltaEvidence: String, Sendable, CaseIterable {
    /// The manifest's `integrity` pin: the rebuilt bytes' SHA-256 is the pinned one.
    case pin
    /// A whole-file digest the server sent (`Repr-Digest`, `x-goog-hash`):
    /// the rebuilt bytes are the server's file.
    case digest
    /// Nothing but the central directory: every byte of the new file was
    /// fetched except reused entries' data, which rests on its CRC-32 alone.
    case crc32
}

/// What an asset's records say of its delta refresh: the report's `delta`
/// (what it cost and saved), `delta_evidence` (what proved its bytes) and
/// `delta_fallback` (why it gave way to a full download), docs/report.md.
/// Empty when no delta was tried, and when the refresh was answered as a plain
/// revalidation would be (a 304, a failure, a tail that was the whole file).
struct DeltaSummary: Sendable {
    var stats: DeltaStats?
    var fallback: DeltaFallback?
    var evidence: DeltaEvidence?

    /// `records`, each carrying it.
    func stamped(on records: [AssetRecord]) -> [AssetRecord] {
        records.map { record in
            var record = record
            record.delta = stats
            record.deltaFallback = fallback
            record.deltaEvidence = evidence
            return record
        }
    }
}

/// The answer to the fetch of an asset's body, made whole or by delta
/// (``DeltaRefresh/fetch(orWhole:)``): the transfer's result, the file the
/// body is in, and what the records say of the delta.
struct FetchAnswer {
    var result: TransferResult
    var body: FileLocation
    var delta = DeltaSummary()
}

/// How a delta refresh's steps ended; ``DeltaRefresh/fetch(orWhole:)`` turns
/// it into the fetch's answer.
enum DeltaOutcome {
    /// No delta was tried (no cached ZIP object, nothing to send): fetch whole, as usual.
    case notTried
    /// Answered as a plain revalidation would be: a 304, or the whole file
    /// (a 200, or a tail that is all of it) in `body`. The pipeline goes on
    /// with it as with a full download's answer; `fallback` says why a 200
    /// came instead of ranges.
    case answered(TransferResult, body: FileLocation, DeltaFallback?, DeltaStats)
    /// The new file, rebuilt at `location`, hashed as it was written and
    /// checked against the evidence there was.
    case rebuilt(FileLocation, TransferResult, DeltaStats, DeltaEvidence)
    /// A full download is to be made: the delta failed for `reason`.
    case fallback(DeltaFallback, DeltaStats)
}
