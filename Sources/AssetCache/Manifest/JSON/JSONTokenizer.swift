/// The bytes of one JSON text (RFC 8259), read forward once: whitespace, strings,
/// numbers and literals, each checked as it is read, so that no second pass is
/// needed to know the text is valid. Non-copyable and without a way back, so a
/// reader cannot save a place and read a value again.
///
/// It knows nothing of nesting, keys or paths (``JSONReader`` does); its errors
/// carry the line and column, the reader adds the path.
struct JSONTokenizer: ~Copyable {
    private let base: UnsafePointer<UInt8>
    let count: Int
    private(set) var position = 0
    /// Newlines can only be whitespace in valid JSON, so counting them there is
    /// enough to place an error without reading the text again.
    private var line = 1
    private var lineStart = 0

    /// `bytes` must stay valid for the tokenizer's lifetime.
    init(_ bytes: UnsafeRawBufferPointer) {
        count = bytes.count
        // An empty buffer may have no address; nothing is ever read from it then.
        base = bytes.baseAddress.map { $0.assumingMemoryBound(to: UInt8.self) } ?? UnsafePointer(bitPattern: 1)!
    }

    // MARK: bytes

    /// The next byte that is not whitespace, without consuming it; nil at the end.
    @inline(__always)
    mutating func peek() -> UInt8? {
        while position < count {
            let byte = base[position]
            switch byte {
            case 0x20, 0x09, 0x0D: position += 1
            case 0x0A:
                position += 1
                line += 1
                lineStart = position
            default: return byte
            }
        }
        return nil
    }

    /// Consumes `byte` if it is the next one that is not whitespace.
    @inline(__always)
    mutating func consume(_ byte: UInt8) -> Bool {
        guard peek() == byte else { return false }
        position += 1
        return true
    }

    /// Steps over the byte ``peek()`` has just returned.
    @inline(__always)
    mutating func skipByte() {
        position += 1
    }

    // MARK: values

    /// `true`, `false` or `null` at the current byte.
    mutating func literal(_ word: StaticString) throws(JSONReadError) {
        let length = word.utf8CodeUnitCount
        guard count - position >= length else { throw unexpected() }
        for offset in 0..<length where base[position + offset] != word.utf8Start[offset] { throw unexpected() }
        position += length
    }

    /// -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, within a Double's range.
    mutating func number() throws(JSONReadError) -> Double {
        let start = position
        let negative = base[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        guard position < count, isDigit(base[position]) else { throw fault("expected a digit") }
        // Up to 19 digits fit a UInt64; 2^53 and 10^22 bound the exact fast path.
        var mantissa: UInt64 = 0
        var digits = 0
        if base[position] == UInt8(ascii: "0") {
            position += 1
        } else {
            digits = accumulate(&mantissa)
        }
        var scale = 0
        if position < count, base[position] == UInt8(ascii: ".") {
            position += 1
            guard position < count, isDigit(base[position]) else { throw fault("expected a digit after '.'") }
            let fraction = accumulate(&mantissa)
            digits += fraction
            scale = -fraction
        }
        var exact = digits <= 19
        if position < count, base[position] | 0x20 == UInt8(ascii: "e") {
            position += 1
            var exponentNegative = false
            if position < count, base[position] == UInt8(ascii: "+") || base[position] == UInt8(ascii: "-") {
                exponentNegative = base[position] == UInt8(ascii: "-")
                position += 1
            }
            guard position < count, isDigit(base[position]) else { throw fault("expected a digit in the exponent") }
            var exponent: UInt64 = 0
            exact = accumulate(&exponent) <= 4 && exact
            scale += exponentNegative ? -Int(exponent) : Int(exponent)
        }
        // Both operands exact and one rounding: the correctly rounded result, as strtod gives.
        if exact, mantissa < 1 << 53, let power = Self.powersOfTen.indices.contains(abs(scale)) ? Self.powersOfTen[abs(scale)] : nil {
            let value = Double(mantissa)
            let result = scale < 0 ? value / power : value * power
            return negative ? -result : result
        }
        let text = String(decoding: UnsafeBufferPointer(start: base + start, count: position - start), as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw JSONReadError(.rule, "the number \(text.prefix(40)) is out of range")
        }
        return value
    }

    private static let powersOfTen: [Double] = (0...22).map { exponent in
        (0..<exponent).reduce(1.0) { result, _ in result * 10 }
    }

    /// Reads digits into `value` (wrapping is harmless: the caller then takes the slow path).
    private mutating func accumulate(_ value: inout UInt64) -> Int {
        let start = position
        while position < count, isDigit(base[position]) {
            value = value &* 10 &+ UInt64(base[position] &- UInt8(ascii: "0"))
            position += 1
        }
        return position - start
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    // MARK: strings

    /// A string at the current quote: consumed and checked (escapes, surrogate
    /// pairs, control characters, UTF-8), its contents not yet decoded.
    mutating func string() throws(JSONReadError) -> JSONString {
        let start = position + 1
        // A local cursor, stored back only where the loop leaves: the hot loops stay in registers.
        var index = start
        var escaped = false
        var invalidUTF8 = false
        while true {
            while count &- index >= 8, Self.plain(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)) {
                index &+= 8
            }
            while index < count, Self.plain(base[index]) { index &+= 1 }
            position = index
            guard index < count else { throw fault("a string is not terminated") }
            let byte = base[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                // An invalid run is reported where it ends, as a whole.
                if invalidUTF8 { throw fault("a string is not valid UTF-8") }
                if byte == UInt8(ascii: "\"") {
                    position = index &+ 1
                    return JSONString(start: start, end: index, escaped: escaped)
                }
                escaped = true
                try escape()
                index = position
            } else if byte < 0x20 {
                throw fault("a string contains the control character \(Self.describe(byte)); escape it")
            } else if let length = utf8Sequence() {
                index &+= length
            } else {
                invalidUTF8 = true
                index &+= 1
            }
        }
    }

    @inline(__always)
    private static func plain(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte < 0x80 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\")
    }

    /// Whether none of eight bytes ends a plain run: no quote, backslash, control
    /// character or non-ASCII byte (the bit tricks of "Bit Twiddling Hacks": a
    /// byte of `word ^ pattern` is zero where `word` has `pattern`'s byte).
    @inline(__always)
    private static func plain(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func zeroByte(_ value: UInt64) -> UInt64 { (value &- ones) & ~value & highs }
        let control = (word &- ones &* 0x20) & ~word & highs
        let special = word & highs | control | zeroByte(word ^ (ones &* 0x22)) | zeroByte(word ^ (ones &* 0x5C))
        return special == 0
    }

    /// The length of the well-formed UTF-8 sequence at the current byte, or nil.
    private func utf8Sequence() -> Int? {
        let lead = base[position]
        let length: Int
        var low: UInt8 = 0x80, high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xED: length = 3; high = 0x9F  // no UTF-16 surrogates
        case 0xE1...0xEF: length = 3
        case 0xF0: length = 4; low = 0x90
        case 0xF4: length = 4; high = 0x8F  // nothing above U+10FFFF
        case 0xF1...0xF3: length = 4
        default: return nil
        }
        guard count - position >= length else { return nil }
        let second = base[position + 1]
        guard second >= low && second <= high else { return nil }
        for offset in 2..<max(length, 2) where base[position + offset] & 0xC0 != 0x80 { return nil }
        return length
    }

    /// One escape after a backslash; `\u` surrogates must come in pairs.
    private mutating func escape() throws(JSONReadError) {
        position += 1
        guard position < count else { throw fault("a string is not terminated") }
        let byte = base[position]
        position += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
             UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return
        case UInt8(ascii: "u"):
            let unit = try hex4()
            switch unit {
            case 0xD800..<0xDC00:
                guard count - position >= 2, base[position] == UInt8(ascii: "\\"), base[position + 1] == UInt8(ascii: "u") else {
                    throw fault("a \\u escape has a high surrogate without its low one")
                }
                position += 2
                guard (0xDC00..<0xE000).contains(try hex4()) else { throw fault("a \\u escape has an invalid surrogate pair") }
            case 0xDC00..<0xE000:
                throw fault("a \\u escape has a low surrogate without its high one")
            default:
                return
            }
        default:
            position -= 1
            let shown = (0x20..<0x7F).contains(byte) ? "\\\(Character(Unicode.Scalar(byte)))" : "\\ and \(Self.describe(byte))"
            throw fault("unknown escape \(shown) in a string")
        }
    }

    private mutating func hex4() throws(JSONReadError) -> UInt32 {
        guard count - position >= 4 else { throw fault("a \\u escape needs four hex digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = JSONString.hexValue(base[position]) else { throw fault("a \\u escape needs four hex digits") }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    /// The bytes of a string read before, as they are in the text (escapes undecoded).
    @inline(__always)
    func raw(_ string: JSONString) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: base + string.start, count: string.end - string.start)
    }

    // MARK: errors

    /// A syntax error at the current byte, placed by line and column (characters,
    /// not bytes, so that a column matches what an editor shows).
    func fault(_ what: String, kind: JSONReadError.Kind = .syntax) -> JSONReadError {
        var column = 1
        for index in lineStart..<min(position, count) where base[index] & 0xC0 != 0x80 { column += 1 }
        return JSONReadError(kind, what, line: line, column: column)
    }

    /// The current byte where a value should be.
    func unexpected() -> JSONReadError {
        guard position < count else { return fault("the document ends where a value should be") }
        return fault("unexpected \(Self.describe(base[position])) where a value should be")
    }

    static func describe(_ byte: UInt8) -> String {
        (0x20..<0x7F).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(byte.twoHexDigits)"
    }
}
