/// One asset to fetch into one file.
package struct TransferRequest: Sendable {
    package var url: String
    /// The file the body goes to, named in an open directory so that the name is
    /// never resolved through a link; created or truncated by the transfer
    /// (appended to when it resumes). Its directory must exist.
    package var location: FileLocation
    /// `location` as a path (named from the working directory when set).
    package var destination: String {
        get { location.path }
        set { location = FileLocation(path: newValue) }
    }
    /// Higher starts first; equal priorities start in submission order.
    package var priority: Int
    /// Extra request headers as `"Name: value"`, e.g. `If-None-Match` for revalidation.
    package var headers: [String]
    /// Set when `destination` already holds the start of the body, left by an
    /// interrupted transfer: the engine asks only for the rest.
    package var resume: Resume?
    /// Told of body bytes and retries as they happen (a run's progress and log).
    var observer: TransferObserver?
    /// False: a redirect ends the request with its 3xx status and `Location`,
    /// for a caller that must decide where its headers may go next.
    package var followsRedirects = true
    /// Bytes this body may have, below the engine's limit (a signature's few).
    package var maxSize: Int64?
    /// The run's byte budget and metered cap for this asset; nil for neither.
    package var allowance: DownloadAllowance?
    /// What the body may write above the run's free-space floor; nil for no floor.
    package var space: SpaceClaim?
    /// A `HEAD` request: the response head (its Content-Length) and no body.
    package var headOnly = false
    /// Set when `headers` ask for byte ranges (the delta engine's requests):
    /// how long a 206 may be, and which whole body to stop at its head.
    package var ranged: Ranged?

    package init(url: String, destination: String, priority: Int = 0, headers: [String] = [], resume: Resume? = nil) {
        self.init(url: url, location: FileLocation(path: destination), priority: priority, headers: headers, resume: resume)
    }

    package init(url: String, location: FileLocation, priority: Int = 0, headers: [String] = [], resume: Resume? = nil) {
        self.url = url
        self.location = location
        self.priority = priority
        self.headers = headers
        self.resume = resume
    }

    /// A partial body to continue. The engine sends `Range: bytes=<offset>-` and
    /// `If-Range: <validator>`, and re-hashes the first `offset` bytes of
    /// `destination` once, when a 206 confirms them, so that the result's
    /// `sha256` covers the whole file. A 200 (the representation changed)
    /// replaces the file; a 416, or a 206 that does not start at `offset`,
    /// makes one more request without `Range`.
    ///
    /// Ignored (the fetch starts from zero) when `destination` is shorter than
    /// `offset`, when `offset` is not positive, or when it already reaches the
    /// size limit. Bytes past `offset` are cut off before appending.
    package struct Resume: Sendable, Equatable {
        /// Bytes of the body already in `destination`.
        package var offset: Int64
        /// The ETag of the response those bytes came from, else its Last-Modified
        /// date, verbatim: sent as `If-Range`, so it must be a strong validator.
        package var validator: String

        package init(offset: Int64, validator: String) {
            self.offset = offset
            self.validator = validator
        }
    }

    /// A request whose own `Range` header the caller judges the answer to. It
    /// is never resumed (a retry asks for the same ranges again).
    package struct Ranged: Sendable, Equatable {
        /// Bytes a 206 may carry: what was asked, plus any multipart framing. A
        /// longer one (a part that never ends) fails, so memory and disk stay bounded.
        package var maxPartialBytes: Int64
        /// A 200 whose strong validator is this one is stopped at its head: the
        /// file did not change, the server only refused several ranges at once,
        /// and fewer a request will do without taking the whole file.
        package var stopsWholeBodyOf: String?

        package init(maxPartialBytes: Int64, stopsWholeBodyOf: String? = nil) {
            self.maxPartialBytes = maxPartialBytes
            self.stopsWholeBodyOf = stopsWholeBodyOf
        }
    }
}

extension TransferRequest.Ranged {
    /// Why a 2xx head of a ranged request stops it before its body, or nil: a
    /// 206 longer than its ranges, or the whole body the caller does not want.
    func refusal(status: Int, headers: ResponseHeaders, url: String) -> AssetFailure? {
        if status == 206, let field = headers["content-length"],
           let length = Int64(ResponseHead.trimmed(field)), length > maxPartialBytes {
            return AssetFailure(.network, "\(url) announced \(length) bytes for ranges that take at most \(maxPartialBytes)")
        }
        if status == 200, let stopsWholeBodyOf, Transfer.strongValidator(of: headers) == stopsWholeBodyOf {
            return AssetFailure(.httpStatus, "\(url) answered several ranges with the whole file")
        }
        return nil
    }
}
