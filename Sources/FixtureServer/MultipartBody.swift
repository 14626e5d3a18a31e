import NIOCore

/// A `multipart/byteranges` body (RFC 9110 §14.6), laid out as the RFC's
/// example: each part is `--BOUNDARY`, its Content-Type and Content-Range,
/// an empty line, its bytes and CRLF; the body ends with `--BOUNDARY--` CRLF.
/// The parts' bytes stay slices of the content, so nothing is read up front.
struct MultipartBody {
    let boundary: String
    private let contentType: String
    private let size: Int
    private(set) var pieces: [BodyPiece] = []
    /// Framing text not yet made a piece: runs of it between parts are one piece.
    private var text = ""

    init(contentType: String, size: Int) {
        // Random, so that no file can happen to hold it; one format, so that
        // a test can find it in the header.
        let random = String(UInt64.random(in: .min ... .max), radix: 16)
        boundary = "fixture-" + String(repeating: "0", count: 16 - random.count) + random
        self.contentType = contentType
        self.size = size
    }

    /// A part that says it holds `claimed` and sends `body`; a hostile answer
    /// makes them differ.
    mutating func add(claimed: Range<Int>, body: BodyPiece) {
        text += "--\(boundary)\r\nContent-Type: \(contentType)\r\n"
        text += "Content-Range: bytes \(claimed.lowerBound)-\(claimed.upperBound - 1)/\(size)\r\n\r\n"
        flushText()
        pieces.append(body)
        text += "\r\n"
    }

    mutating func add(_ range: Range<Int>) {
        add(claimed: range, body: .content(range))
    }

    /// The closing delimiter; the body is complete after it.
    mutating func close() {
        text += "--\(boundary)--\r\n"
        flushText()
    }

    var contentTypeHeader: String { "multipart/byteranges; boundary=\(boundary)" }

    private mutating func flushText() {
        guard !text.isEmpty else { return }
        pieces.append(.bytes(ByteBuffer(string: text)))
        text = ""
    }
}
