import NIOCore
import NIOHTTP1

/// Answers the satisfiable ranges of a request as the route says: one part,
/// multipart, refused, or broken on purpose (`bad_range=`).
struct RangeResponder {
    let size: Int
    let contentType: String
    let route: RangeRoute

    /// nil: answer 200 with the whole content, as a server over its range cap does.
    func answer(_ ranges: [Range<Int>], headers: HTTPHeaders) -> FileAnswer? {
        if let most = route.maxRanges, ranges.count > most { return nil }
        if let hostility = route.hostility {
            return hostile(hostility, ranges, headers: headers)
        }
        switch route.mode {
        case .refuseMultiple where ranges.count > 1:
            return Self.unsatisfiable(size: size, headers: headers)
        case .first:
            return single(ranges[0], headers: headers)
        case _ where ranges.count == 1:
            return single(ranges[0], headers: headers)
        default:
            var body = parts(ranges)
            body.close()
            return multipart(body, headers: headers)
        }
    }

    static func unsatisfiable(size: Int, headers: HTTPHeaders) -> FileAnswer {
        var headers = headers
        headers.add(name: "Content-Range", value: "bytes */\(size)")
        headers.add(name: "Content-Length", value: "0")
        return FileAnswer(status: .rangeNotSatisfiable, headers: headers, body: nil)
    }

    private func single(_ range: Range<Int>, headers: HTTPHeaders) -> FileAnswer {
        single(claimed: contentRange(range), body: .content(range), headers: headers)
    }

    /// A 206 of one part; without a length when `body` never ends.
    private func single(claimed: String, body: BodyPiece, headers: HTTPHeaders) -> FileAnswer {
        var headers = headers
        headers.add(name: "Content-Range", value: claimed)
        if let length = body.length {
            headers.add(name: "Content-Length", value: String(length))
        }
        return FileAnswer(status: .partialContent, headers: headers, body: [body])
    }

    /// A multipart body of these ranges, not yet closed.
    private func parts(_ ranges: [Range<Int>]) -> MultipartBody {
        var body = MultipartBody(contentType: contentType, size: size)
        for range in ranges { body.add(range) }
        return body
    }

    private func multipart(_ body: MultipartBody, headers: HTTPHeaders) -> FileAnswer {
        var headers = headers
        headers.replaceOrAdd(name: "Content-Type", value: body.contentTypeHeader)
        if let length = BodySource(content: nil, pieces: body.pieces).length {
            headers.add(name: "Content-Length", value: String(length))
        }
        return FileAnswer(status: .partialContent, headers: headers, body: body.pieces)
    }

    private func contentRange(_ range: Range<Int>, total: Int? = nil) -> String {
        "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(total ?? size)"
    }

    private func hostile(_ hostility: RangeRoute.Hostility, _ ranges: [Range<Int>], headers: HTTPHeaders) -> FileAnswer {
        let first = ranges[0]
        switch hostility {
        case .mismatch:
            // The bytes next to those asked, truthfully labelled: only the
            // comparison with the request shows the fault.
            if first.upperBound < size {
                let moved = (first.lowerBound + 1)..<(first.upperBound + 1)
                return single(moved, headers: headers)
            }
            if first.lowerBound > 0 {
                let moved = (first.lowerBound - 1)..<(first.upperBound - 1)
                return single(moved, headers: headers)
            }
            // The whole file was asked: only the length can be wrong.
            return single(claimed: contentRange(first, total: size + 1), body: .content(first), headers: headers)
        case .overlap:
            var body = parts(ranges)
            let start = first.lowerBound + first.count / 2
            body.add(start..<min(size, start + first.count))
            body.close()
            return multipart(body, headers: headers)
        case .pastEnd:
            let claimed = size..<(size + Self.pastEndBytes.readableBytes)
            guard ranges.count > 1 else {
                return single(claimed: contentRange(claimed), body: .bytes(Self.pastEndBytes), headers: headers)
            }
            var body = parts(ranges)
            body.add(claimed: claimed, body: .bytes(Self.pastEndBytes))
            body.close()
            return multipart(body, headers: headers)
        case .endless:
            guard ranges.count > 1 else {
                return single(claimed: contentRange(first), body: .endless, headers: headers)
            }
            var body = parts([])
            body.add(claimed: first, body: .endless)
            return multipart(body, headers: headers)
        case .garbled:
            var body = parts(ranges)
            body.close()
            var answer = multipart(body, headers: headers)
            answer.headers.replaceOrAdd(name: "Content-Type", value: "multipart/byteranges; boundary=not-the-one-in-the-body")
            return answer
        }
    }

    /// What a `bad_range=past_end` part holds: 100 bytes that are no file's.
    private static let pastEndBytes = ByteBuffer(repeating: 0xEE, count: 100)
}
