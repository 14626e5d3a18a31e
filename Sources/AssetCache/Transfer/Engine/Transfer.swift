import CCurl

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One fetch, across all its attempts. Lives on the multi thread only; libcurl's
/// callbacks find it through the pointer given as CURLOPT_PRIVATE, WRITEDATA and
/// HEADERDATA, which stays valid because the loop holds the transfer while a
/// request is in flight.
final class Transfer: TransferQueueItem {
    static let userAgent = "prefetch/\(AssetCacheVersion.current) (AssetCache)"

    let request: TransferRequest
    let ticket: TransferTicket
    let sequence: Int
    /// scheme://host:port, for the per-host limit.
    let hostKey: String
    var priority: Int { request.priority }
    /// When a transfer waiting to retry may go back into the queue.
    var retryAt: ContinuousClock.Instant?
    private(set) var attempts = 0
    /// Requests made again from the first byte because a Range request could
    /// not continue the file; they do not use up retries.
    private(set) var restarts = 0
    /// Requests that failed while the link was down: they do not use up retries.
    private(set) var forgiven = 0
    /// Requests that count against `--retries`.
    var countedAttempts: Int { attempts - restarts - forgiven }
    /// Set by the callbacks when any byte of a response arrives, but for a
    /// gateway's 502, 503 or 504 (which says nothing got beyond it); the loop
    /// reads and clears it to know the link carries bytes (``LinkWatch``).
    var heardBytes = false
    /// Whether a request of this transfer got such an answer in this run: its
    /// URL is one a probe may ask for (``ProbeTarget``).
    var hasAnswered = false
    /// The ``LinkWatch/quietPeriod`` of this transfer's last link-level failure.
    var linkFailurePeriod: Int?
    private(set) var easy: UnsafeMutableRawPointer?
    /// The engine's `--limit-rate` budget, charged with every body byte.
    var meter: RateLimit?
    /// Whether this attempt's receiving is paused for `meter`.
    var receivePaused = false

    private let continuation: CheckedContinuation<TransferResult, Never>
    let maxAssetSize: Int64
    private var isFinished = false
    private var requestHeaders: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private(set) var head = ResponseHead()
    private var sink: BodySink
    /// Body bytes of a non-2xx response: counted against the size cap, never written.
    private var discardedBytes: Int64 = 0
    /// Set when a callback aborts the request; libcurl then reports only a generic
    /// write error.
    var callbackFailure: AssetFailure?
    private var status = 0
    private(set) var effectiveURL: String
    /// The run's byte budget and the metered cap, as far as this transfer goes.
    var allowance: DownloadAllowance?
    /// Set when the allowance stopped the transfer: the asset waits for a later run.
    var deferral: DiscardReason?

    // Resuming. `range` is what the next request asks for; `fileValidator`
    // names the representation whose bytes are in the file.
    private(set) var range: TransferRequest.Resume?
    private var fileValidator: String?
    /// The caller's partial body, until a response replaces it.
    private var inheritedPrefix: Int64?
    /// `inheritedPrefix` once a 206 has continued it.
    private var resumedFrom: Int64?
    /// Whether this attempt's body has started (the file is open for it).
    private var bodyStarted = false
    /// Set when a response to a Range request cannot continue the file: a 416,
    /// or a 206 for other bytes than those asked for.
    private var rangeRejection: AssetFailure?

    init(submission: TransferSubmission, sequence: Int, maxAssetSize: Int64) {
        request = submission.request
        ticket = submission.ticket
        continuation = submission.continuation
        self.sequence = sequence
        self.maxAssetSize = maxAssetSize
        hostKey = Self.hostKey(of: submission.request.url)
        effectiveURL = submission.request.url
        allowance = submission.request.allowance
        if let resume = submission.request.resume,
           Self.canResume(resume, at: submission.request.location, maxAssetSize: maxAssetSize) {
            range = resume
            fileValidator = resume.validator
            inheritedPrefix = resume.offset
            sink = BodySink(location: submission.request.location, prefix: resume.offset)
        } else {
            sink = BodySink(location: submission.request.location)
        }
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
    }

    deinit {
        releaseHandle()
        sink.closeFile()
        errorBuffer.deallocate()
    }

    // MARK: attempts

    /// A fresh easy handle for each request: connections are reused through the
    /// multi handle's connection cache, which outlives easy handles.
    func beginAttempt(limits: TransferLimits) -> AttemptFailure? {
        attempts += 1
        head = ResponseHead()
        discardedBytes = 0
        callbackFailure = nil
        rangeRejection = nil
        bodyStarted = false
        status = 0
        errorBuffer[0] = 0
        guard let easy = ccurl_easy_init() else {
            return AttemptFailure(failure: AssetFailure(.network, "libcurl could not create a handle for \(request.url)"), isTransient: false)
        }
        self.easy = easy
        var lines = request.headers
        if let range {
            // As plain headers, not CURLOPT_RESUME_FROM: with that, libcurl 7.88
            // fails a 200 answer (CURLE_RANGE_ERROR), and a 200 is exactly how a
            // server says that If-Range did not match.
            lines += ["Range: bytes=\(range.offset)-", "If-Range: \(range.validator)"]
        }
        if let refusal = HeaderRules.refusal(of: lines) {
            return AttemptFailure(failure: AssetFailure(.network, "\(refusal) (fetching \(request.url))"), isTransient: false)
        }
        // "Accept-Encoding:" with no value: libcurl sends no such header (a
        // compressed body would break Range), yet with CURLOPT_ACCEPT_ENCODING
        // set (requestOptions) it decodes a body a server compressed unasked, so that a
        // ZIP served gzipped is still the ZIP, its decoded size under the cap.
        for line in lines + ["Accept-Encoding:"] {
            requestHeaders = ccurl_slist_append(requestHeaders, line)
        }
        let context = Unmanaged.passUnretained(self).toOpaque()

        var result = CURLE_OK
        func set(_ code: CURLcode) {
            if result == CURLE_OK { result = code }
        }
        set(ccurl_easy_setopt_string(easy, CURLOPT_URL, request.url))
        set(ccurl_easy_setopt_pointer(easy, CURLOPT_PRIVATE, context))
        set(ccurl_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer))
        set(requestOptions(easy, limits: limits, context: context))
        if requestHeaders != nil {
            set(ccurl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, requestHeaders))
        }
        set(ccurl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, context))
        set(ccurl_easy_setopt_header_callback(easy) { buffer, size, count, context in
            let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
            let wasComplete = transfer.head.isComplete
            transfer.head.consume(line: UnsafeRawBufferPointer(start: buffer, count: size * count))
            transfer.noteAnswer()
            if !wasComplete, transfer.head.isComplete, transfer.head.isSuccess, !transfer.admitBody() || !transfer.admitRanged() {
                return 0
            }
            return size * count
        })
        set(ccurl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, context))
        set(ccurl_easy_setopt_write_callback(easy) { buffer, size, count, context in
            let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
            return transfer.receiveBody(UnsafeRawBufferPointer(start: buffer, count: size * count))
        })
        guard result == CURLE_OK else {
            return AttemptFailure(
                failure: AssetFailure(.network, "libcurl refused an option for \(request.url): \(String(cString: ccurl_easy_strerror(result)))"),
                isTransient: false
            )
        }
        return nil
    }

    /// How a request ended. The caller has already removed the handle from the
    /// multi handle.
    func endAttempt(_ code: CURLcode, limits: TransferLimits) -> AttemptOutcome {
        guard let easy else {
            return .failed(AttemptFailure(failure: AssetFailure(.network, "no request was made for \(request.url)"), isTransient: false), retryAfter: nil)
        }
        readResponseInfo(easy)
        let detail = String(cString: errorBuffer)
        var osErrno = 0
        _ = ccurl_easy_getinfo_long(easy, CURLINFO_OS_ERRNO, &osErrno)
        releaseHandle()
        defer { sink.closeFile() }

        if code == CURLE_OK, callbackFailure == nil, rangeRejection == nil {
            if head.isSuccess, !bodyStarted {
                // A body-less 2xx still has to leave its (empty) file.
                _ = startBody()
            } else if status == 416, let range {
                rangeRejection = AssetFailure(
                    .httpStatus, "HTTP 416 from \(effectiveURL) for bytes \(range.offset)- of a partial download")
            }
        }
        if let rangeRejection {
            return restarts == 0
                ? .restart
                : .failed(AttemptFailure(failure: rangeRejection, isTransient: false), retryAfter: nil)
        }
        let retryAfter = head.headers["retry-after"]
        if let callbackFailure {
            return .failed(AttemptFailure(failure: callbackFailure, isTransient: false), retryAfter: nil)
        }
        if code != CURLE_OK {
            return .failed(AttemptFailure.curl(code, url: effectiveURL, requestedURL: request.url, detail: detail, limits: limits, maxSize: maxAssetSize, osErrno: osErrno), retryAfter: retryAfter)
        }
        switch status {
        case 200..<300, 304:
            return .succeeded
        case 0:
            return .failed(AttemptFailure(failure: AssetFailure(.network, "no HTTP response from \(effectiveURL)"), isTransient: true), retryAfter: nil)
        default:
            return .failed(AttemptFailure.http(status: status, from: effectiveURL, retryAfter: retryAfter), retryAfter: retryAfter)
        }
    }

    /// Removes this attempt's handle without a result: for cancellation and
    /// shutdown. The status and headers received so far are kept, so that a
    /// partial body comes with its validators.
    func abandonAttempt() {
        if let easy {
            readResponseInfo(easy)
        }
        releaseHandle()
        sink.closeFile()
    }

    private func readResponseInfo(_ easy: UnsafeMutableRawPointer) {
        var responseCode = 0
        _ = ccurl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &responseCode)
        status = responseCode
        var urlPointer: UnsafeMutablePointer<CChar>?
        if ccurl_easy_getinfo_string(easy, CURLINFO_EFFECTIVE_URL, &urlPointer) == CURLE_OK, let urlPointer {
            effectiveURL = String(cString: urlPointer)
        }
    }

    /// Before waiting to retry after a failed request. A body cut short is
    /// continued from where it stopped when its response gave a strong
    /// validator to ask with; otherwise the next request starts from zero.
    func prepareRetry() {
        if request.ranged == nil, sink.bytes > 0, sink.bytes < maxAssetSize, let fileValidator {
            range = TransferRequest.Resume(offset: sink.bytes, validator: fileValidator)
        } else {
            startOver()
        }
    }

    /// The last request failed because the link was down: not one of its retries.
    func forgiveAttempt() {
        forgiven += 1
    }

    /// After a 416 or a 206 that does not fit: one more request, for all of it.
    func prepareRestart() {
        restarts += 1
        startOver()
    }

    private func startOver() {
        sink.discard()
        range = nil
        fileValidator = nil
        inheritedPrefix = nil
        resumedFrom = nil
    }

    // MARK: ending

    /// Resumes the awaiting task exactly once. `keepsPartial`: the failure is
    /// one a later run may resume after (transient, or a cancellation).
    func finish(failure: AssetFailure?, keepsPartial: Bool = false) {
        guard !isFinished else { return }
        isFinished = true
        sink.closeFile()
        allowance?.settle()
        let notModified = failure == nil && status == 304
        var resumable: TransferRequest.Resume?
        // A ranged request's body is not the start of the file: never resumed.
        if failure != nil, keepsPartial, request.ranged == nil, sink.bytes > 0, sink.bytes < maxAssetSize, let fileValidator {
            resumable = TransferRequest.Resume(offset: sink.bytes, validator: fileValidator)
        }
        let result = TransferResult(
            url: request.url,
            effectiveURL: effectiveURL,
            status: status,
            bytes: notModified ? 0 : sink.bytes,
            sha256: notModified ? BodySink.emptySHA256 : sink.sha256Hex ?? "",
            headers: status == 0 ? ResponseHeaders() : head.headers,
            attempts: attempts,
            failure: failure,
            resumedFrom: notModified ? nil : resumedFrom,
            resumable: resumable,
            deferral: deferral
        )
        continuation.resume(returning: result)
    }

    // MARK: callbacks

    /// Only a 2xx body lands in the destination; anything else (an error page) is
    /// drained and counted so that an endless error body still hits the cap.
    /// Every byte that arrived counts for the run's `downloaded_bytes`, whatever
    /// becomes of it: it crossed the network.
    private func receiveBody(_ buffer: UnsafeRawBufferPointer) -> Int {
        noteAnswer()
        charge(buffer.count)
        let received = Int64(buffer.count)
        request.observer?.received(buffer.count)
        if !chargeAllowance(received) { return 0 }
        guard head.isSuccess else {
            discardedBytes += received
            if discardedBytes > maxAssetSize {
                callbackFailure = AttemptFailure.tooLarge(url: request.url, limit: maxAssetSize)
                return 0
            }
            return buffer.count
        }
        if !bodyStarted, !startBody() {
            return 0
        }
        // The cap counts the whole file, a resumed prefix included.
        if sink.bytes + received > maxAssetSize {
            callbackFailure = AttemptFailure.tooLarge(url: request.url, limit: maxAssetSize)
            return 0
        }
        if head.status == 206, let ranged = request.ranged, sink.bytes + received > ranged.maxPartialBytes {
            callbackFailure = AssetFailure(
                .network, "\(effectiveURL) sent more than the \(ranged.maxPartialBytes) bytes the ranges asked for can take")
            return 0
        }
        if let cap = allowance?.maxAssetBytes, sink.bytes + received > cap {
            _ = postpone(DownloadAllowance.Refusal(reason: .metered, why: "its body passed \(cap) bytes"))
            return 0
        }
        if !claimSpace(received) { return 0 }
        if let failure = sink.append(buffer) {
            // A full disk is no fault of the asset's: it waits for a later run.
            if failure.lacksSpace { deferral = .storageLow }
            callbackFailure = failure
            return 0
        }
        return buffer.count
    }

    /// A byte of a response: news that the link carries requests beyond its
    /// first hop, unless the status is one a gateway answers for an origin it
    /// cannot reach.
    private func noteAnswer() {
        if !AttemptFailure.gatewayStatuses.contains(head.status) {
            heardBytes = true
        }
    }

    /// Decides, once per 2xx response, whether its body continues the file or
    /// replaces it, and opens the file accordingly. False stops the request,
    /// with `callbackFailure` or `rangeRejection` saying why.
    private func startBody() -> Bool {
        bodyStarted = true
        if range != nil, head.status == 206, head.headers.isEncoded {
            // Bytes of the encoded body's range, decoded: not the file's.
            rangeRejection = AssetFailure(.network, "\(effectiveURL) answered a Range request with an encoded body")
            return false
        }
        if let range, head.status == 206 {
            let contentRange = head.headers["content-range"]
            guard let (start, total) = Self.parseContentRange(contentRange), start == range.offset else {
                rangeRejection = AssetFailure(
                    .network,
                    "\(effectiveURL) answered a request for bytes \(range.offset)- with Content-Range '\(contentRange ?? "")'")
                return false
            }
            if let total, total > maxAssetSize {
                callbackFailure = AttemptFailure.tooLarge(url: request.url, limit: maxAssetSize)
                return false
            }
            if let failure = sink.continueAppending() {
                callbackFailure = failure
                return false
            }
            if resumedFrom == nil {
                resumedFrom = inheritedPrefix
            }
            return true
        }
        // A 200 to a Range request: If-Range did not match (the representation
        // changed) or the server ignores ranges. Either way, the whole body.
        if let failure = sink.startFresh() {
            callbackFailure = failure
            return false
        }
        range = nil
        inheritedPrefix = nil
        resumedFrom = nil
        // A decoded body cannot be resumed: a Range would count encoded bytes.
        fileValidator = head.headers.isEncoded ? nil : Self.strongValidator(of: head.headers)
        return true
    }

    private func releaseHandle() {
        if let easy {
            ccurl_easy_cleanup(easy)
            self.easy = nil
        }
        if let requestHeaders {
            ccurl_slist_free_all(requestHeaders)
            self.requestHeaders = nil
        }
    }
}
