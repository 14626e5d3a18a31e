#if canImport(Glibc)
import Glibc
#endif

/// One range request of a delta refresh: `Range` with some of the planned
/// ranges and `If-Range` with the tail's validator, the body into its own file
/// in `tmp/`, and what the answer is, judged strictly: every part exactly one
/// of the ranges asked, of a file of the tail's size and validator, with no
/// Content-Encoding.
struct RangeFetch {
    let engine: TransferEngine
    let store: CacheStore
    let url: String
    let priority: Int
    let observer: TransferObserver?
    /// The tail's strong validator, sent as `If-Range`.
    let validator: String
    let fileSize: Int64

    enum Answer {
        /// Some of the ranges asked (at least one), at their offsets in `body`.
        case parts(body: FileLocation, [MultipartByteranges.Part])
        /// Not this many ranges at once: a 416, or the unchanged whole file stopped at its head.
        case refused
        /// A 200: the whole file as it is now (it changed, or the server
        /// ignores ranges), in `body`.
        case whole(body: FileLocation, TransferResult)
        case failed(DeltaFallback)
    }

    /// The answer, with the requests made and the body bytes they brought.
    func fetch(_ ranges: [Range<Int64>]) async -> (answer: Answer, requests: Int, bytes: Int64) {
        let body = store.temporaryFile("delta-ranges")
        let asked = ranges.reduce(Int64(0)) { $0 + ($1.upperBound - $1.lowerBound) }
        var request = TransferRequest(
            url: url, location: body, priority: priority, headers: [RangePlan.header(ranges), "If-Range: \(validator)"])
        request.observer = observer
        request.ranged = TransferRequest.Ranged(
            maxPartialBytes: asked + MultipartByteranges.framingPerPart * Int64(ranges.count) + Int64(MultipartByteranges.maxPreamble),
            stopsWholeBodyOf: ranges.count > 1 ? validator : nil)
        let result = await engine.fetch(request)
        let answer = judge(result, ranges: ranges, body: body)
        switch answer {
        case .parts, .whole: break
        case .refused, .failed: body.directory.unlink(body.name)
        }
        return (answer, result.attempts, result.bytes)
    }

    private func judge(_ result: TransferResult, ranges: [Range<Int64>], body: FileLocation) -> Answer {
        let headers = result.headers
        if result.status == 416 || (result.status == 200 && result.failure != nil && ranges.count > 1
            && Transfer.strongValidator(of: headers) == validator) {
            return ranges.count > 1 ? .refused : .failed(.rangesRefused)
        }
        guard result.failure == nil else {
            // A 206 stopped for its length: a part that never ends.
            guard result.status == 206 else { return .failed(.requestFailed) }
            return MultipartByteranges.boundary(contentType: headers.contentType) == nil ? .failed(.rangeMismatch) : .failed(.multipartInvalid)
        }
        if headers.isEncoded { return .failed(.contentEncoding) }
        if result.status == 200 { return .whole(body: body, result) }
        guard result.status == 206 else { return .failed(.requestFailed) }
        if let sent = Transfer.strongValidator(of: headers), sent != validator { return .failed(.validatorChanged) }
        if let boundary = MultipartByteranges.boundary(contentType: headers.contentType) {
            let parsed = body.withStablePath { path -> Result<[MultipartByteranges.Part], MultipartByteranges.Failure> in
                guard let mapped = try? MappedFile(path: path) else { return .failure(.init(description: "an empty body")) }
                let bytes = UnsafeRawBufferPointer(start: mapped.bytes, count: mapped.size)
                return Result { () throws(MultipartByteranges.Failure) in
                    try MultipartByteranges.parse(bytes, boundary: boundary, asked: ranges, fileSize: fileSize)
                }
            }
            guard case .success(let parts)? = parsed, !parts.isEmpty else { return .failed(.multipartInvalid) }
            return .parts(body: body, parts)
        }
        // One part, plain: exactly one of the ranges asked, and all of it.
        guard let bounds = Transfer.parseContentRangeBounds(headers["content-range"]), bounds.total == fileSize else {
            return .failed(.rangeMismatch)
        }
        let range = bounds.start..<(bounds.end + 1)
        guard ranges.contains(range), result.bytes == range.upperBound - range.lowerBound else { return .failed(.rangeMismatch) }
        return .parts(body: body, [MultipartByteranges.Part(range: range, bodyOffset: 0)])
    }
}
