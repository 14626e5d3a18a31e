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
    /// Set by the callbacks when any byte of a response arrives; the loop reads
    /// and clears it to know the link carries bytes (``LinkWatch``).
    var heardBytes = false
    /// The ``LinkWatch/quietPeriod`` of this transfer's last link-level failure.
    var linkFailurePeriod: Int?
    private(set) var easy: UnsafeMutableRawPointer?
    /// The engine's `--limit-rate` budget, charged with every body byte.
    var meter: RateLimit?
    /// Whether this attempt's receiving is paused for `meter`.
    var receivePaused = false

    private let continuation: CheckedContinuation<TransferResult, Never>
    private let maxAssetSize: Int64
    private var isFinished = false
    private var requestHeaders: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private var head = ResponseHead()
    private var sink: BodySink
    /// Body bytes of a non-2xx response: counted against the size cap, never written.
    private var discardedBytes: Int64 = 0
    /// Set when a callback aborts the request; libcurl then reports only a generic
    /// write error.
    private var callbackFailure: AssetFailure?
    private var status = 0
    private var effectiveURL: String
    /// The run's byte budget and the metered cap, as far as this transfer goes.
    private var allowance: DownloadAllowance?
    /// Body bytes of every attempt, error pages included: what the budget is charged.
    private var moved: Int64 = 0
    /// Set when the allowance stopped the transfer: the asset waits for a later run.
    private(set) var deferral: DiscardReason?

    // Resuming. `range` is what the next request asks for; `fileValidator`
    // names the representation whose bytes are in the file.
    private var range: TransferRequest.Resume?
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
        // set below it decodes a body a server compressed unasked, so that a
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
        // Signals would need the process's handlers; timeouts work without them.
        set(ccurl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1))
        // Debian's libcurl also speaks file, ftp, smb, …: an asset URL or a
        // redirect must not reach them.
        set(ccurl_easy_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https"))
        // And an https URL never becomes http: that would hand the network the
        // bytes (and, for a pin-less asset, the choice of them).
        set(ccurl_easy_setopt_string(easy, CURLOPT_REDIR_PROTOCOLS_STR, hostKey.hasPrefix("https://") ? "https" : "http,https"))
        set(ccurl_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, request.followsRedirects ? 1 : 0))
        if request.headOnly { set(ccurl_easy_setopt_long(easy, CURLOPT_NOBODY, 1)) }
        set(ccurl_easy_setopt_long(easy, CURLOPT_MAXREDIRS, limits.maxRedirects))
        // Requests that start together towards a new host wait for the first TLS
        // handshake to say (ALPN) whether it multiplexes (HTTP/2). Not over plain
        // HTTP: libcurl learns it cannot only when the first transfer ends.
        if hostKey.hasPrefix("https://") {
            set(ccurl_easy_setopt_long(easy, CURLOPT_PIPEWAIT, 1))
        }
        set(ccurl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(limits.connectTimeout)))
        set(ccurl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, Self.milliseconds(limits.maxTime)))
        if limits.stallTimeout > 0, limits.stallBytesPerSecond > 0 {
            set(ccurl_easy_setopt_long(easy, CURLOPT_LOW_SPEED_LIMIT, limits.stallBytesPerSecond))
            set(ccurl_easy_setopt_long(easy, CURLOPT_LOW_SPEED_TIME, max(1, Int((CheckedNumber.milliseconds(limits.stallTimeout) + 999) / 1000))))
        }
        // libcurl 7.88 checks this only against a Content-Length it was told;
        // the write callback enforces the cap on what actually arrives.
        set(ccurl_easy_setopt_off_t(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(maxAssetSize)))
        if let rate = limits.limitRate {
            set(limitReceiving(easy, bytesPerSecond: rate, concurrency: limits.concurrency, context: context))
        }
        if let caCertFile = limits.caCertFile {
            set(ccurl_easy_setopt_string(easy, CURLOPT_CAINFO, caCertFile))
            // Instead of the system's certificates, not beside them: Debian's
            // libcurl also trusts every file in /etc/ssl/certs by default.
            set(ccurl_easy_setopt_string(easy, CURLOPT_CAPATH, nil))
        }
        set(ccurl_easy_setopt_string(easy, CURLOPT_USERAGENT, Self.userAgent))
        // Decoding on, the header off (above): every cap counts decoded bytes, as
        // they reach the write callback. No FAILONERROR: the status is read
        // after the fact, so 4xx and 5xx stay distinguishable.
        set(ccurl_easy_setopt_string(easy, CURLOPT_ACCEPT_ENCODING, ""))
        // A range of an encoded body is not a stream a decoder can start in: it
        // is passed on as it came, and refused for its Content-Encoding.
        if range != nil || request.ranged != nil {
            set(ccurl_easy_setopt_long(easy, CURLOPT_HTTP_CONTENT_DECODING, 0))
        }
        if requestHeaders != nil {
            set(ccurl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, requestHeaders))
        }
        set(ccurl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, context))
        set(ccurl_easy_setopt_header_callback(easy) { buffer, size, count, context in
            let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
            let wasComplete = transfer.head.isComplete
            transfer.head.consume(line: UnsafeRawBufferPointer(start: buffer, count: size * count))
            transfer.heardBytes = true
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
            return .failed(AttemptFailure.curl(code, url: effectiveURL, requestedURL: request.url, detail: detail, limits: limits, maxSize: maxAssetSize), retryAfter: retryAfter)
        }
        switch status {
        case 200..<300, 304:
            return .succeeded
        case 0:
            return .failed(AttemptFailure(failure: AssetFailure(.network, "no HTTP response from \(effectiveURL)"), isTransient: true), retryAfter: nil)
        default:
            return .failed(AttemptFailure.http(status: status, from: effectiveURL), retryAfter: retryAfter)
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
        if let allowance {
            allowance.budget?.giveBack(allowance.held - moved)
            allowance.headKnown?()
        }
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
        heardBytes = true
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
            _ = postpone(.metered, "its body passed \(cap) bytes")
            return 0
        }
        if let failure = sink.append(buffer) {
            callbackFailure = failure
            return 0
        }
        return buffer.count
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

    // MARK: allowance

    /// On a 2xx head: whether the body its Content-Length announces fits the
    /// metered cap and the run's budget, taking its bytes from the budget if so.
    /// Without a Content-Length the bytes are counted as they arrive.
    private func admitBody() -> Bool {
        allowance?.headKnown?()
        guard let allowance, let field = head.headers["content-length"],
              let length = Int64(ResponseHead.trimmed(field)), length >= 0 else { return true }
        // A 206 continues the file: the asset is the prefix and the rest.
        let assetBytes = (head.status == 206 ? range?.offset ?? 0 : 0) + length
        if let cap = allowance.maxAssetBytes, assetBytes > cap {
            return postpone(.metered, "its Content-Length is \(assetBytes) bytes")
        }
        guard let budget = allowance.budget else { return true }
        let more = moved + length - allowance.held
        guard more > 0 else { return true }
        guard budget.take(more) else {
            return postpone(.byteBudget, "its Content-Length is \(length) bytes and \(max(0, budget.left + allowance.held - moved)) are left")
        }
        self.allowance?.held += more
        return true
    }

    /// On a 2xx head of a ranged request: a 206 longer than its ranges, or the
    /// whole body the caller does not want, is stopped before its body.
    private func admitRanged() -> Bool {
        guard let ranged = request.ranged else { return true }
        if head.status == 206, let field = head.headers["content-length"],
           let length = Int64(ResponseHead.trimmed(field)), length > ranged.maxPartialBytes {
            callbackFailure = AssetFailure(
                .network, "\(effectiveURL) announced \(length) bytes for ranges that take at most \(ranged.maxPartialBytes)")
            return false
        }
        if head.status == 200, let unchanged = ranged.stopsWholeBodyOf, Self.strongValidator(of: head.headers) == unchanged {
            callbackFailure = AssetFailure(.httpStatus, "\(effectiveURL) answered several ranges with the whole file")
            return false
        }
        return true
    }

    /// Every body byte is charged to the budget; past what the transfer holds,
    /// it must take more, and stops when there is none. The bytes in hand have
    /// crossed the network all the same: they are counted.
    private func chargeAllowance(_ received: Int64) -> Bool {
        moved += received
        guard let budget = allowance?.budget, let held = allowance?.held, moved > held else { return true }
        allowance?.held = moved
        if budget.take(moved - held) { return true }
        budget.force(moved - held)
        return postpone(.byteBudget, "the run's \(budget.limit) bytes are spent")
    }

    /// Stops the request; the asset is deferred to a later run, its partial body kept.
    private func postpone(_ reason: DiscardReason, _ why: String) -> Bool {
        deferral = reason
        let limit = reason == .metered ? "--metered-max-asset-bytes on a metered link" : "--max-download-bytes"
        callbackFailure = AssetFailure(.network, "\(request.url) left for a later run by \(limit): \(why)")
        return false
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

    /// 0 is libcurl's "no limit" (for connecting: its 300 s default).
    private static func milliseconds(_ seconds: Double) -> Int {
        Int(CheckedNumber.milliseconds(seconds))
    }
}
