/// Says in a few words what bytes that are not the expected format look like, so
/// a failure reads "not an image (starts with '<!DOCTYPE html')" rather than just
/// "invalid": a CDN error page saved under an image URL is the common case.
enum ContentDescription {
    /// How many bytes callers should pass.
    static let sampleLength = 64
    private static let quotedLength = 14

    static func describe(_ head: [UInt8]) -> String {
        if head.isEmpty { return "the file is empty" }
        if let known = knownFormat(head) { return known }
        if let text = leadingText(head) { return "starts with '\(text)'" }
        return "starts with bytes " + head.prefix(8).map(\.twoHexDigits).joined(separator: " ")
    }

    private static func knownFormat(_ head: [UInt8]) -> String? {
        func starts(_ prefix: [UInt8]) -> Bool { head.starts(with: prefix) }
        if starts([0x50, 0x4B, 0x03, 0x04]) || starts([0x50, 0x4B, 0x05, 0x06]) { return "a ZIP archive" }
        if starts(Array("%PDF".utf8)) { return "a PDF document" }
        if starts([0x1F, 0x8B]) { return "gzip data" }
        if starts([0x42, 0x4D]) { return "a BMP image, which is not supported" }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) {
            return "a TIFF image, which is not supported"
        }
        if head.count >= 12, head[4..<8].elementsEqual("ftyp".utf8) {
            return "an ISO media file (HEIF, AVIF or MP4), which is not supported"
        }
        if starts([0x00, 0x00, 0x01, 0x00]) { return "an ICO image, which is not supported" }
        return nil
    }

    /// The start of the first non-blank line, when the sample is printable UTF-8.
    private static func leadingText(_ head: [UInt8]) -> String? {
        var bytes = head[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        // The sample may end inside a multi-byte character: drop that partial tail.
        var text = String(decoding: bytes, as: UTF8.self)
        while text.hasSuffix("\u{FFFD}") { text.removeLast() }
        guard !text.unicodeScalars.contains(where: { $0 == "\u{FFFD}" }) else { return nil }
        let printable = text.unicodeScalars.allSatisfy { scalar in
            scalar == "\n" || scalar == "\r" || scalar == "\t" || (scalar.value >= 0x20 && scalar.value != 0x7F)
        }
        guard printable else { return nil }
        let line = text.drop(while: \.isWhitespace).prefix(while: { !$0.isNewline })
        guard !line.isEmpty else { return nil }
        return String(line.prefix(quotedLength))
    }
}

extension UInt8 {
    /// "0A", for messages that name bytes.
    var twoHexDigits: String {
        let digits = String(self, radix: 16, uppercase: true)
        return digits.count == 1 ? "0" + digits : digits
    }
}
