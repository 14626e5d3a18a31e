import CCurl
#if canImport(Glibc)
import Glibc
#endif

/// The rules of resuming a partial body (RFC 9110 §14, §13.1.5): when a kept file
/// may be continued, what may go in `If-Range`, and what a 206 says it holds.
extension Transfer {
    /// `Resume` describes a file that is really there, and resuming it leaves
    /// room under the cap.
    static func canResume(_ resume: TransferRequest.Resume, at location: FileLocation, maxAssetSize: Int64) -> Bool {
        // The validator comes from the cache's tmp/partial/: sent only if clean.
        guard resume.offset > 0, resume.offset < maxAssetSize, HeaderRules.validator(resume.validator) != nil else { return false }
        guard let status = location.directory.status(location.name), status.st_mode & S_IFMT == S_IFREG else { return false }
        return Int64(status.st_size) >= resume.offset
    }

    /// What `If-Range` may carry (RFC 9110 §13.1.5): a strong entity tag, else a
    /// Last-Modified date that is strong, i.e. at least a second before the
    /// response's Date (assumed so when there is no Date).
    static func strongValidator(of headers: ResponseHeaders) -> String? {
        if let etag = headers.etag, etag.hasPrefix("\"") {
            return etag
        }
        guard let lastModified = headers.lastModified, !lastModified.isEmpty else { return nil }
        if let date = headers.date {
            guard let modified = HTTPDate.parse(lastModified) else { return nil }
            if let sent = HTTPDate.parse(date), sent - modified < 1 { return nil }
        }
        return lastModified
    }

    /// `bytes START-END/TOTAL` (TOTAL may be `*`): START and TOTAL.
    static func parseContentRange(_ value: String?) -> (start: Int64, total: Int64?)? {
        parseContentRangeBounds(value).map { ($0.start, $0.total) }
    }

    /// `bytes START-END/TOTAL` (TOTAL may be `*`): all three, END inclusive.
    static func parseContentRangeBounds(_ value: String?) -> (start: Int64, end: Int64, total: Int64?)? {
        guard let value else { return nil }
        let text = ResponseHead.trimmed(value)
        guard text.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = text.dropFirst("bytes ".count).drop { $0 == " " }
        let halves = spec.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard halves.count == 2 else { return nil }
        let ends = halves[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard ends.count == 2, let start = Int64(ends[0]), let end = Int64(ends[1]), start >= 0, end >= start else {
            return nil
        }
        if halves[1] == "*" { return (start, end, nil) }
        guard let total = Int64(halves[1]), total > end else { return nil }
        return (start, end, total)
    }
}
