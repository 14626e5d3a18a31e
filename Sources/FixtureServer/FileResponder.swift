import NIOHTTP1

/// What stat(2) told us about a file: enough for validators and ranges.
/// With `encoding`, it describes the encoded bytes sent instead of the file.
struct FileInfo: Sendable, Equatable {
    var size: Int
    var modifiedSeconds: Int
    var modifiedNanoseconds: Int
    /// In the tag, so that two files never share one, even written in the
    /// same clock tick with the same size (`then=` relies on it).
    var inode = 0
    /// The Content-Encoding of the bytes sent (`gzip`), nil for the file itself.
    var encoding: String?

    /// Strong: a change of size or mtime makes a new tag, which is what a
    /// fixture folder rewritten between test steps needs.
    var etag: String {
        let nanoseconds = modifiedSeconds * 1_000_000_000 + modifiedNanoseconds
        let suffix = encoding.map { "-" + $0 } ?? ""
        return "\"\(String(size, radix: 16))-\(String(nanoseconds, radix: 16))-\(String(inode, radix: 16))\(suffix)\""
    }

    var lastModified: String { HTTPDate.format(modifiedSeconds) }
}

/// The answer for a GET or HEAD of a regular file: status, headers, and the
/// body as pieces of the file (or of its encoding); nil for none.
struct FileAnswer: Equatable {
    var status: HTTPResponseStatus
    var headers: HTTPHeaders
    var body: [BodyPiece]?
}

enum FileResponder {
    static func answer(path: String, info: FileInfo, request: HTTPHeaders, route: RangeRoute = RangeRoute()) -> FileAnswer {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: ContentType.forPath(path))
        if let encoding = info.encoding {
            headers.add(name: "Content-Encoding", value: encoding)
        }
        headers.add(name: "ETag", value: info.etag)
        headers.add(name: "Last-Modified", value: info.lastModified)
        if route.acceptRanges {
            headers.add(name: "Accept-Ranges", value: "bytes")
        }

        if isNotModified(info: info, request: request) {
            return FileAnswer(status: .notModified, headers: headers, body: nil)
        }

        if let range = request.first(name: "range"), route.mode != .ignore, ifRangeHolds(info: info, request: request) {
            switch RangeRequest.parse(range, size: info.size) {
            case .satisfiable(let ranges):
                let responder = RangeResponder(size: info.size, contentType: ContentType.forPath(path), route: route)
                if let answer = responder.answer(ranges, headers: headers) { return answer }
            case .unsatisfiable:
                return RangeResponder.unsatisfiable(size: info.size, headers: headers)
            case .ignored:
                break
            }
        }

        headers.add(name: "Content-Length", value: String(info.size))
        return FileAnswer(status: .ok, headers: headers, body: [.content(0..<info.size)])
    }

    /// RFC 9110 §13.2.2: If-None-Match, when present, decides alone.
    private static func isNotModified(info: FileInfo, request: HTTPHeaders) -> Bool {
        let noneMatch = request[canonicalForm: "if-none-match"]
        if !noneMatch.isEmpty {
            return noneMatch.contains { tag in tag == "*" || weakTag(String(tag)) == weakTag(info.etag) }
        }
        if let since = request.first(name: "if-modified-since").flatMap(HTTPDate.parse) {
            return info.modifiedSeconds <= since
        }
        return false
    }

    /// If-Range needs a strong match: an entity tag equal to ours, or exactly
    /// our Last-Modified date.
    private static func ifRangeHolds(info: FileInfo, request: HTTPHeaders) -> Bool {
        guard let condition = request.first(name: "if-range") else { return true }
        if condition.hasPrefix("\"") || condition.hasPrefix("W/") {
            return condition == info.etag
        }
        return HTTPDate.parse(condition) == info.modifiedSeconds
    }

    private static func weakTag(_ tag: String) -> String {
        tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag
    }
}

enum ContentType {
    static func forPath(_ path: String) -> String {
        let name = path.split(separator: "/").last ?? ""
        let ext = name.contains(".") ? name.split(separator: ".").last.map { $0.lowercased() } : nil
        switch ext {
        case "png": return "image/png"
        case "jpg", "jpeg": return "image/jpeg"
        case "gif": return "image/gif"
        case "webp": return "image/webp"
        case "zip": return "application/zip"
        case "html": return "text/html; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "js": return "text/javascript; charset=utf-8"
        case "json": return "application/json"
        case "txt": return "text/plain; charset=utf-8"
        default: return "application/octet-stream"
        }
    }
}
