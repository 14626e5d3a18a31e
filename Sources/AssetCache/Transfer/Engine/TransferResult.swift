/// What one `fetch` produced. It never throws: a failure is data the report
/// needs (kind, message, attempts), not control flow.
package struct TransferResult: Sendable {
    package var url: String
    /// After redirects.
    package var effectiveURL: String
    /// Final HTTP status; 0 if no response arrived.
    package var status: Int
    /// Body bytes in the destination file when the transfer ended, a resumed
    /// prefix included; 0 after a 304. On a failure, what was kept on disk: the
    /// file is closed (written with write(2), so nothing is left in a buffer;
    /// not fsynced) and left in place for the caller to keep or remove.
    package var bytes: Int64
    /// Lower-case hex SHA-256 of those bytes, computed as they streamed past
    /// (a resumed prefix is re-read once), so nothing has to read the file again
    /// to hash it. Empty on a failure before a resumed prefix was re-read.
    package var sha256: String
    /// The final response's header fields. On a failure mid-body they include
    /// the validators (`etag`, `lastModified`) of the bytes left on disk — but
    /// `resumable` is the simpler way to keep a partial file.
    package var headers: ResponseHeaders
    /// Requests made, retries included.
    package var attempts: Int
    /// nil exactly when the last request completed with a 2xx or 304. A body cut
    /// short or over the cap keeps its 2xx `status` and has a failure.
    package var failure: AssetFailure?
    /// How many bytes of the final file were already in `destination` before
    /// this fetch (its request's `resume.offset`, once a 206 confirmed it); nil
    /// when the body was fetched from its first byte.
    package var resumedFrom: Int64?
    /// After a transient failure or a cancellation that left part of a body in
    /// `destination`: pass it back as `TransferRequest.resume` (with the same
    /// destination and URL) to fetch only the rest. nil on success, and when
    /// there is nothing to resume or no strong validator to resume it with.
    package var resumable: TransferRequest.Resume?
    /// Set when the request's ``DownloadAllowance`` stopped it (with `failure`):
    /// the asset is left for a later run, for this reason.
    package var deferral: DiscardReason?

    package init(
        url: String, effectiveURL: String, status: Int, bytes: Int64, sha256: String,
        headers: ResponseHeaders, attempts: Int, failure: AssetFailure?,
        resumedFrom: Int64? = nil, resumable: TransferRequest.Resume? = nil, deferral: DiscardReason? = nil
    ) {
        self.url = url
        self.effectiveURL = effectiveURL
        self.status = status
        self.bytes = bytes
        self.sha256 = sha256
        self.headers = headers
        self.attempts = attempts
        self.failure = failure
        self.resumedFrom = resumedFrom
        self.resumable = resumable
        self.deferral = deferral
    }
}
