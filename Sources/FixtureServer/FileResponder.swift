import NIOHTTP1

/// What stat(2) told us about a file: enough for validators and ranges.
struct FileInfo: Sendable, Equatable {
    var size: Int
    var modifiedSeconds: Int
    var modifiedNanoseconds: Int

    /// Strong: a change of size or mtime makes a new tag, which is what a
    /// fixture folder rewritten between test steps needs.
    var etag: String {
        let nanoseconds = modifiedSeconds * 1_000_000_000 + modifiedNanoseconds
        return "\"\(String(size, radix: 16))-\(String(nanoseconds, radix: 16))\""
    }

    var lastModified: String { HTTPDate.format(modifiedSeconds) }
}

/// The answer for a GET or HEAD of a regular file: status, headers, and which
/// bytes of the file make the body.
struct FileAnswer: Equatable {
    var status: HTTPResponseStatus
    var headers: HTTPHeaders
    var bytes: Range<Int>?
}

enum FileResponder {
    static func answer(path: String, info: FileInfo, request: HTTPHeaders) -> FileAnswer {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: ContentType.forPath(path))
        headers.add(name: "ETag", value: info.etag)
        headers.add(name: "Last-Modified", value: info.lastModified)
        headers.add(name: "Accept-Ranges", value: "bytes")

        if isNotModified(info: info, request: request) {
            return FileAnswer(status: .notModified, headers: headers, bytes: nil)
        }

        if let range = request.first(name: "range"), ifRangeHolds(info: info, request: request) {
            switch ByteRange.parse(range, size: info.size) {
            case .satisfiable(let bytes):
                headers.add(name: "Content-Range", value: "bytes \(bytes.lowerBound)-\(bytes.upperBound - 1)/\(info.size)")
                headers.add(name: "Content-Length", value: String(bytes.count))
                return FileAnswer(status: .partialContent, headers: headers, bytes: bytes)
            case .unsatisfiable:
                headers.add(name: "Content-Range", value: "bytes */\(info.size)")
                headers.add(name: "Content-Length", value: "0")
                return FileAnswer(status: .rangeNotSatisfiable, headers: headers, bytes: nil)
            case .ignored:
                break
            }
        }

        headers.add(name: "Content-Length", value: String(info.size))
        return FileAnswer(status: .ok, headers: headers, bytes: 0..<info.size)
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

/// A single `bytes=` range (RFC 9110 §14.1.2). Several ranges are answered
/// with the whole file, as the RFC allows.
enum ByteRange: Equatable {
    case satisfiable(Range<Int>)
    case unsatisfiable
    case ignored

    static func parse(_ header: String, size: Int) -> ByteRange {
        guard header.lowercased().hasPrefix("bytes=") else { return .ignored }
        let spec = header.dropFirst("bytes=".count).trimmingSpaces
        guard !spec.contains(",") else { return .ignored }
        let ends = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard ends.count == 2 else { return .ignored }
        let first = ends[0].trimmingSpaces
        let last = ends[1].trimmingSpaces

        if first.isEmpty {
            guard let suffix = Int(last), suffix >= 0 else { return .ignored }
            guard suffix > 0, size > 0 else { return .unsatisfiable }
            return .satisfiable(max(0, size - suffix)..<size)
        }
        guard let start = Int(first), start >= 0 else { return .ignored }
        var end = size - 1
        if !last.isEmpty {
            guard let requestedEnd = Int(last), requestedEnd >= start else { return .ignored }
            end = min(requestedEnd, size - 1)
        }
        guard start < size else { return .unsatisfiable }
        return .satisfiable(start..<(end + 1))
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

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var text = self
        while text.first == " " { text = text.dropFirst() }
        while text.last == " " { text = text.dropLast() }
        return text
    }
}
