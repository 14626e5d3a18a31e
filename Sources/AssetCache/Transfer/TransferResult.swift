/// What one `fetch` produced. It never throws: a failure is data the report
/// needs (kind, message, attempts), not control flow.
public struct TransferResult: Sendable {
    public var url: String
    /// After redirects.
    public var effectiveURL: String
    /// Final HTTP status; 0 if no response arrived.
    public var status: Int
    /// Body bytes in the destination file.
    public var bytes: Int64
    /// Lower-case hex SHA-256 of those bytes, computed as they streamed past, so
    /// nothing has to read the file again to hash it.
    public var sha256: String
    public var headers: ResponseHeaders
    /// Requests made, retries included.
    public var attempts: Int
    /// nil exactly when the last request completed with a 2xx or 304. A body cut
    /// short or over the cap keeps its 2xx `status` and has a failure.
    public var failure: AssetFailure?

    public init(
        url: String, effectiveURL: String, status: Int, bytes: Int64, sha256: String,
        headers: ResponseHeaders, attempts: Int, failure: AssetFailure?
    ) {
        self.url = url
        self.effectiveURL = effectiveURL
        self.status = status
        self.bytes = bytes
        self.sha256 = sha256
        self.headers = headers
        self.attempts = attempts
        self.failure = failure
    }
}
