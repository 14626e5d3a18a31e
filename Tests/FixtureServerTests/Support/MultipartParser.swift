/// One part of a `multipart/byteranges` body as it was sent.
struct BytePart: Equatable {
    var contentType: String
    /// The range the part's Content-Range names, and the total it states.
    var claimed: Range<Int>
    var total: Int
    var bytes: [UInt8]
}

struct MultipartError: Error, CustomStringConvertible {
    var description: String
}

/// A strict reader of RFC 9110 §14.6 bodies as the fixture server writes them:
/// no preamble, CRLF line ends, exactly Content-Type then Content-Range in
/// each part, a part's length taken from its Content-Range, and nothing after
/// the closing delimiter. Anything else is an error naming where it went wrong.
enum MultipartParser {
    /// The boundary of a `multipart/byteranges; boundary=B` Content-Type.
    static func boundary(contentType: String?) throws -> String {
        let prefix = "multipart/byteranges; boundary="
        guard let contentType, contentType.hasPrefix(prefix) else {
            throw MultipartError(description: "not multipart/byteranges: \(contentType ?? "no Content-Type")")
        }
        return String(contentType.dropFirst(prefix.count))
    }

    static func parse(_ body: [UInt8], boundary: String) throws -> [BytePart] {
        var reader = Reader(bytes: body)
        var parts: [BytePart] = []
        while true {
            let delimiter = try reader.line()
            if delimiter == "--\(boundary)--" {
                guard reader.atEnd else { throw MultipartError(description: "bytes after the closing delimiter") }
                return parts
            }
            guard delimiter == "--\(boundary)" else {
                throw MultipartError(description: "expected the delimiter of part \(parts.count), got '\(delimiter)'")
            }
            let typeLine = try reader.line()
            let rangeLine = try reader.line()
            guard typeLine.hasPrefix("Content-Type: "), rangeLine.hasPrefix("Content-Range: bytes "),
                try reader.line().isEmpty
            else { throw MultipartError(description: "bad head of part \(parts.count): '\(typeLine)', '\(rangeLine)'") }
            let (claimed, total) = try contentRange(String(rangeLine.dropFirst("Content-Range: bytes ".count)))
            let bytes = try reader.take(claimed.count)
            guard try reader.line().isEmpty else {
                throw MultipartError(description: "part \(parts.count) is longer than its Content-Range")
            }
            parts.append(BytePart(
                contentType: String(typeLine.dropFirst("Content-Type: ".count)), claimed: claimed, total: total, bytes: bytes))
        }
    }

    /// "FIRST-LAST/TOTAL" (RFC 9110 §14.4).
    static func contentRange(_ text: String) throws -> (Range<Int>, Int) {
        let halves = text.split(separator: "/")
        let ends = halves.first?.split(separator: "-") ?? []
        guard halves.count == 2, ends.count == 2, let first = Int(ends[0]), let last = Int(ends[1]),
            let total = Int(halves[1]), first <= last
        else { throw MultipartError(description: "bad Content-Range '\(text)'") }
        return (first..<(last + 1), total)
    }

    private struct Reader {
        var bytes: [UInt8]
        var position = 0

        var atEnd: Bool { position == bytes.count }

        mutating func line() throws -> String {
            var end = position
            while end + 1 < bytes.count, !(bytes[end] == 13 && bytes[end + 1] == 10) { end += 1 }
            guard end + 1 < bytes.count else { throw MultipartError(description: "no CRLF after offset \(position)") }
            defer { position = end + 2 }
            return String(decoding: bytes[position..<end], as: UTF8.self)
        }

        mutating func take(_ count: Int) throws -> [UInt8] {
            guard bytes.count - position >= count else {
                throw MultipartError(description: "body ends inside a part at offset \(position)")
            }
            defer { position += count }
            return Array(bytes[position..<position + count])
        }
    }
}

extension RawResponse {
    /// The parts of a multipart/byteranges response, read strictly.
    func byteParts() throws -> [BytePart] {
        try MultipartParser.parse(body, boundary: MultipartParser.boundary(contentType: headers["content-type"]))
    }
}
