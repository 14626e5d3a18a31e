/// A `multipart/byteranges` body (RFC 9110 §14.6, RFC 2046 §5.1): where in the
/// body each part's bytes lie, and which range of the file they are. Every
/// part must be exactly one of the ranges asked for, none twice, all of one
/// file of the known size; each part's length is taken from its Content-Range
/// and must be followed by the next delimiter. The body is bounded by what
/// was asked (``TransferRequest/Ranged``), so a part that never ends is cut
/// off there and refused, never read further.
enum MultipartByteranges {
    struct Part: Equatable {
        /// Bytes of the file.
        var range: Range<Int64>
        /// Where they start in the body.
        var bodyOffset: Int
    }

    /// What is wrong, in words that quote nothing the server sent.
    struct Failure: Error, Equatable, CustomStringConvertible {
        var description: String
    }

    /// Framing may not take more than this before the first part or in one
    /// part's header block: a server that sends more is not answering ranges.
    static let maxPreamble = 1024
    static let maxPartHeaders = 2048
    /// Room for each part's framing in a response: the delimiter, Content-Type and Content-Range.
    static let framingPerPart: Int64 = 512

    /// The boundary of a `multipart/byteranges` Content-Type, quoted or not
    /// (1 to 70 characters, RFC 2046 §5.1.1); nil for any other type.
    static func boundary(contentType: String?) -> String? {
        guard let contentType else { return nil }
        let fields = contentType.split(separator: ";").map { ResponseHead.trimmed($0) }
        guard fields.first?.lowercased() == "multipart/byteranges" else { return nil }
        for field in fields.dropFirst() {
            let pair = field.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, ResponseHead.trimmed(pair[0]).lowercased() == "boundary" else { continue }
            var value = ResponseHead.trimmed(pair[1])
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            guard (1...70).contains(value.utf8.count), value.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F || $0 == 0x20 }) else {
                return nil
            }
            return value
        }
        return nil
    }

    /// The parts of `body`, in the order sent (possibly fewer than asked).
    static func parse(
        _ body: UnsafeRawBufferPointer, boundary: String, asked: [Range<Int64>], fileSize: Int64
    ) throws(Failure) -> [Part] {
        let delimiter = Array("--\(boundary)".utf8)
        var cursor = Cursor(body: body)
        // The first delimiter opens the body or follows a CRLF of the preamble.
        guard let first = cursor.find(delimiter, within: maxPreamble + delimiter.count, afterLineBreak: true) else {
            throw Failure(description: "no multipart boundary in its first \(maxPreamble) bytes")
        }
        cursor.position = first + delimiter.count
        var unanswered = Set(asked.map { [$0.lowerBound, $0.upperBound] })
        var parts: [Part] = []
        while true {
            if cursor.consume(Array("--".utf8)) { return parts }
            cursor.skipPadding()
            guard cursor.consume([0x0D, 0x0A]) else {
                throw Failure(description: "part \(parts.count + 1): the boundary line does not end in CRLF")
            }
            let range = try contentRange(&cursor, part: parts.count + 1, fileSize: fileSize)
            guard unanswered.remove([range.lowerBound, range.upperBound]) != nil else {
                throw Failure(description: "part \(parts.count + 1) is bytes \(range.lowerBound)-\(range.upperBound - 1), "
                    + "which was not asked for or came twice")
            }
            let length = Int(range.upperBound - range.lowerBound)
            guard body.count - cursor.position >= length else {
                throw Failure(description: "part \(parts.count + 1) (bytes \(range.lowerBound)-\(range.upperBound - 1)) is cut off")
            }
            parts.append(Part(range: range, bodyOffset: cursor.position))
            cursor.position += length
            guard cursor.consume([0x0D, 0x0A] + delimiter) else {
                throw Failure(description: "part \(parts.count) is not followed by the boundary")
            }
        }
    }

    /// The part's header block, up to its empty line: its Content-Range, whole
    /// and within the file.
    private static func contentRange(_ cursor: inout Cursor, part: Int, fileSize: Int64) throws(Failure) -> Range<Int64> {
        var found: (start: Int64, end: Int64, total: Int64?)?
        let start = cursor.position
        while true {
            guard let end = cursor.find([0x0D, 0x0A], within: maxPartHeaders - (cursor.position - start), afterLineBreak: false) else {
                throw Failure(description: "part \(part): its headers are longer than \(maxPartHeaders) bytes or cut off")
            }
            let line = UnsafeRawBufferPointer(rebasing: cursor.body[cursor.position..<end])
            cursor.position = end + 2
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
                throw Failure(description: "part \(part): a header line without a colon")
            }
            let name = String(decoding: line[..<colon], as: UTF8.self).lowercased()
            guard name == "content-range" else { continue }
            guard found == nil else { throw Failure(description: "part \(part) has two Content-Range headers") }
            let value = String(decoding: line[(colon + 1)...], as: UTF8.self)
            guard let bounds = Transfer.parseContentRangeBounds(value) else {
                throw Failure(description: "part \(part) has a Content-Range that is not 'bytes START-END/SIZE'")
            }
            found = bounds
        }
        guard let found else { throw Failure(description: "part \(part) has no Content-Range") }
        guard found.total == fileSize else {
            throw Failure(description: "part \(part) is of a file of \(found.total.map(String.init) ?? "unknown") bytes, not \(fileSize)")
        }
        return found.start..<(found.end + 1)
    }

    /// Reading position over the body, with bounded searches.
    private struct Cursor {
        let body: UnsafeRawBufferPointer
        var position = 0

        /// Where `needle` next starts, looking no further than `within` bytes
        /// from here; `afterLineBreak`: only at the start or after a CRLF.
        func find(_ needle: [UInt8], within: Int, afterLineBreak: Bool) -> Int? {
            let last = min(body.count - needle.count, position + max(0, within - needle.count))
            guard last >= position else { return nil }
            for index in position...last where body[index] == needle[0] {
                if afterLineBreak, index != 0, !(index >= 2 && body[index - 2] == 0x0D && body[index - 1] == 0x0A) { continue }
                if (0..<needle.count).allSatisfy({ body[index + $0] == needle[$0] }) { return index }
            }
            return nil
        }

        mutating func consume(_ bytes: [UInt8]) -> Bool {
            guard body.count - position >= bytes.count, (0..<bytes.count).allSatisfy({ body[position + $0] == bytes[$0] }) else {
                return false
            }
            position += bytes.count
            return true
        }

        /// Transport padding (RFC 2046 §5.1.1): spaces and tabs before the CRLF.
        mutating func skipPadding() {
            var skipped = 0
            while position < body.count, body[position] == 0x20 || body[position] == 0x09, skipped < 64 {
                position += 1
                skipped += 1
            }
        }
    }
}
