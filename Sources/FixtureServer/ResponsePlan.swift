import NIOCore
import NIOHTTP1

/// The bytes a body's pieces are cut from: the file, or its encoding in memory.
enum Content {
    case file(NIOFileHandle)
    case buffer(ByteBuffer)
}

/// One stretch of a body.
enum BodyPiece: Equatable {
    case bytes(ByteBuffer)
    /// These bytes of the content.
    case content(Range<Int>)
    /// Zero-valued bytes for ever: a body that only the client can end.
    case endless

    /// Bytes in the piece; nil when it never ends.
    var length: Int? {
        switch self {
        case .bytes(let buffer): buffer.readableBytes
        case .content(let range): range.count
        case .endless: nil
        }
    }
}

/// Where a response body comes from: pieces in order (framing text, slices of
/// the content), so that a multipart body streams from the file as a plain one does.
struct BodySource {
    var content: Content?
    var pieces: [BodyPiece]

    static let none = BodySource(content: nil, pieces: [])
    static let endless = BodySource(content: nil, pieces: [.endless])

    static func bytes(_ buffer: ByteBuffer) -> BodySource {
        BodySource(content: nil, pieces: [.bytes(buffer)])
    }

    /// Bytes in the body; nil when it never ends.
    var length: Int? {
        var total = 0
        for piece in pieces {
            guard let length = piece.length else { return nil }
            total += length
        }
        return total
    }

    func close() {
        if case .file(let handle) = content, handle.isOpen {
            try? handle.close()
        }
    }
}

/// A response as the route decides it, before the faults that shape its
/// delivery (delay, cut, pace, chunking) are applied.
struct ResponsePlan {
    var status: HTTPResponseStatus
    var headers: HTTPHeaders
    var body: BodySource

    /// A short HTML page, for error statuses and fault statuses alike.
    static func page(_ status: HTTPResponseStatus, detail: String? = nil) -> ResponsePlan {
        let title = "\(status.code) \(status.reasonPhrase)".trimmingCharacters(in: [" "])
        var html = "<!doctype html>\n<title>\(title)</title>\n<h1>\(title)</h1>\n"
        if let detail { html += "<p>\(escapeHTML(detail))</p>\n" }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/html; charset=utf-8")
        headers.add(name: "Content-Length", value: String(html.utf8.count))
        return ResponsePlan(status: status, headers: headers, body: .bytes(ByteBuffer(string: html)))
    }

    static func redirect(to location: String) -> ResponsePlan {
        var plan = page(.found, detail: "Moved to \(location)")
        plan.headers.add(name: "Location", value: location)
        return plan
    }

    static func endless() -> ResponsePlan {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/octet-stream")
        return ResponsePlan(status: .ok, headers: headers, body: .endless)
    }
}

private func escapeHTML(_ text: String) -> String {
    var escaped = ""
    for character in text {
        switch character {
        case "<": escaped += "&lt;"
        case ">": escaped += "&gt;"
        case "&": escaped += "&amp;"
        case "\"": escaped += "&quot;"
        default: escaped.append(character)
        }
    }
    return escaped
}

extension String {
    fileprivate func trimmingCharacters(in set: Set<Character>) -> String {
        var text = Substring(self)
        while let first = text.first, set.contains(first) { text = text.dropFirst() }
        while let last = text.last, set.contains(last) { text = text.dropLast() }
        return String(text)
    }
}
