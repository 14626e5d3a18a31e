/// A strict pass over a manifest's bytes before Codable sees them (RFC 8259), so
/// that what Foundation reports only as "the data was not valid JSON" names the
/// JSON path and the line and column instead: syntax errors, numbers no Double
/// can hold (`1e400`), invalid UTF-8, control characters in strings. It also
/// refuses what Codable lets through silently: a key given twice in one object
/// (which of the two wins is a parser's choice, so two parsers could read two
/// manifests) and nesting deeper than ``maxDepth``. Iterative, so depth costs no
/// stack.
struct JSONPreflight {
    static let maxDepth = 128

    private enum Frame {
        case object(keys: Set<String>, key: String?)
        case array(count: Int)
    }

    private let bytes: [UInt8]
    private var position = 0
    private var stack: [Frame] = []

    static func check(_ data: some Collection<UInt8>) throws(ManifestError) {
        var scanner = JSONPreflight(bytes: Array(data))
        try scanner.document()
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    // MARK: grammar

    private mutating func document() throws(ManifestError) {
        skipWhitespace()
        guard position < bytes.count else { throw ManifestError(path: "", "not valid JSON: the manifest is empty") }
        values: while true {
            guard try value() else { continue }
            // After a complete value: close containers, or go on to the next member or element.
            while true {
                skipWhitespace()
                guard let frame = stack.last else {
                    guard position == bytes.count else { throw syntax("unexpected data after the end of the document") }
                    return
                }
                switch (frame, peek()) {
                case (.object(let keys, _), UInt8(ascii: ",")):
                    position += 1
                    stack[stack.count - 1] = .object(keys: keys, key: nil)
                    try key()
                    continue values
                case (.array(let count), UInt8(ascii: ",")):
                    position += 1
                    stack[stack.count - 1] = .array(count: count + 1)
                    continue values
                case (.object, UInt8(ascii: "}")), (.array, UInt8(ascii: "]")):
                    position += 1
                    stack.removeLast()
                case (.object(let keys, let key), _):
                    stack[stack.count - 1] = .object(keys: keys, key: nil)
                    throw syntax("expected ',' or '}' after the member '\(key ?? "")'")
                case (.array, _):
                    throw syntax("expected ',' or ']' after an array element")
                }
            }
        }
    }

    /// One value: true when it is complete, false when it opened a container
    /// (reading its first key) whose first value comes next.
    private mutating func value() throws(ManifestError) -> Bool {
        skipWhitespace()
        guard let byte = peek() else { throw syntax("the document ends where a value should be") }
        switch byte {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            guard stack.count < Self.maxDepth else {
                throw ManifestError(path: path, "nested deeper than \(Self.maxDepth) levels")
            }
            position += 1
            skipWhitespace()
            let close = byte == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
            if peek() == close {
                position += 1
                return true
            }
            if byte == UInt8(ascii: "{") {
                stack.append(.object(keys: [], key: nil))
                try key()
            } else {
                stack.append(.array(count: 0))
            }
            return false
        case UInt8(ascii: "\""):
            _ = try string()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            try number()
        default:
            throw syntax("unexpected \(describe(byte)) where a value should be")
        }
        return true
    }

    /// A member's key and its colon; the value follows.
    private mutating func key() throws(ManifestError) {
        skipWhitespace()
        guard peek() == UInt8(ascii: "\"") else { throw syntax("expected a string key") }
        let name = try string()
        guard case .object(var keys, _) = stack[stack.count - 1] else { preconditionFailure("key outside an object") }
        guard keys.insert(name).inserted else {
            stack[stack.count - 1] = .object(keys: keys, key: name)
            throw ManifestError(path: path, "the key '\(name)' appears twice in one object")
        }
        stack[stack.count - 1] = .object(keys: keys, key: name)
        skipWhitespace()
        guard peek() == UInt8(ascii: ":") else { throw syntax("expected ':' after the key '\(name)'") }
        position += 1
    }

    private mutating func literal(_ word: StaticString) throws(ManifestError) {
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        guard bytes.count - position >= expected.count, bytes[position..<(position + expected.count)].elementsEqual(expected) else {
            throw syntax("unexpected \(describe(bytes[position])) where a value should be")
        }
        position += expected.count
    }

    /// -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, and within a Double's range.
    private mutating func number() throws(ManifestError) {
        let start = position
        if peek() == UInt8(ascii: "-") { position += 1 }
        guard let first = peek(), isDigit(first) else { throw syntax("expected a digit") }
        position += 1
        if first != UInt8(ascii: "0") { skipDigits() }
        if peek() == UInt8(ascii: ".") {
            position += 1
            guard let digit = peek(), isDigit(digit) else { throw syntax("expected a digit after '.'") }
            skipDigits()
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            position += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { position += 1 }
            guard let digit = peek(), isDigit(digit) else { throw syntax("expected a digit in the exponent") }
            skipDigits()
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        guard let number = Double(text), number.isFinite else {
            throw ManifestError(path: path, "the number \(text.prefix(40)) is out of range")
        }
    }

    /// A string's value, escapes decoded; raw control characters and invalid
    /// UTF-8 are refused.
    private mutating func string() throws(ManifestError) -> String {
        position += 1  // the opening quote
        var scalars = String.UnicodeScalarView()
        var runStart = position
        func flush(_ end: Int) throws(ManifestError) {
            guard let text = String(validating: bytes[runStart..<end], as: UTF8.self) else {
                throw syntax("a string is not valid UTF-8")
            }
            scalars.append(contentsOf: text.unicodeScalars)
        }
        while true {
            guard let byte = peek() else { throw syntax("a string is not terminated") }
            switch byte {
            case UInt8(ascii: "\""):
                try flush(position)
                position += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                try flush(position)
                position += 1
                scalars.append(try escape())
                runStart = position
            case 0..<0x20:
                throw syntax("a string contains the control character \(describe(byte)); escape it")
            default:
                position += 1
            }
        }
    }

    private mutating func escape() throws(ManifestError) -> Unicode.Scalar {
        guard let byte = peek() else { throw syntax("a string is not terminated") }
        position += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let unit = try hex4()
            switch unit {
            case 0xD800..<0xDC00:
                guard peek() == UInt8(ascii: "\\"), bytes.count - position >= 2, bytes[position + 1] == UInt8(ascii: "u") else {
                    throw syntax("a \\u escape has a high surrogate without its low one")
                }
                position += 2
                let low = try hex4()
                guard (0xDC00..<0xE000).contains(low) else { throw syntax("a \\u escape has an invalid surrogate pair") }
                return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))!
            case 0xDC00..<0xE000:
                throw syntax("a \\u escape has a low surrogate without its high one")
            default:
                return Unicode.Scalar(unit)!
            }
        default:
            position -= 1
            let shown = (0x20..<0x7F).contains(byte) ? "\\\(Character(Unicode.Scalar(byte)))" : "\\ and \(describe(byte))"
            throw syntax("unknown escape \(shown) in a string")
        }
    }

    private mutating func hex4() throws(ManifestError) -> UInt32 {
        guard bytes.count - position >= 4 else { throw syntax("a \\u escape needs four hex digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw syntax("a \\u escape needs four hex digits")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    // MARK: bytes

    private func peek() -> UInt8? { position < bytes.count ? bytes[position] : nil }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private mutating func skipDigits() {
        while let byte = peek(), isDigit(byte) { position += 1 }
    }

    private mutating func skipWhitespace() {
        while let byte = peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { position += 1 }
    }

    // MARK: errors

    /// Where the scanner is, as ``ManifestError`` spells paths: `triggers[3].data`.
    private var path: String {
        var result = ""
        for frame in stack {
            switch frame {
            case .array(let count): result += "[\(count)]"
            case .object(_, let key?): result += result.isEmpty ? key : ".\(key)"
            case .object(_, nil): break
            }
        }
        return result
    }

    private func syntax(_ what: String) -> ManifestError {
        var line = 1, column = 1
        for byte in bytes[..<min(position, bytes.count)] {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {  // count characters, not UTF-8 continuation bytes
                column += 1
            }
        }
        return ManifestError(path: path, "not valid JSON: \(what) (line \(line), column \(column))")
    }

    private func describe(_ byte: UInt8) -> String {
        (0x20..<0x7F).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(byte.twoHexDigits)"
    }
}
