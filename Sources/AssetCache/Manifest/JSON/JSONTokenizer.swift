/// The bytes of one JSON text (RFC 8259), read forward once: whitespace, strings,
/// numbers and literals, each checked as it is read, so that no second pass is
/// needed to know the text is valid. Non-copyable and without a way back, so a
/// reader cannot save a place and read a value again.
///
/// It knows nothing of nesting, keys or paths (``JSONReader`` does); its errors
/// carry the line and column, the reader adds the path.
struct JSONTokenizer: ~Copyable {
    let base: UnsafePointer<UInt8>
    let count: Int
    /// Only ever moves forward.
    var position = 0
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
        try value(of: scanNumber())
    }

    /// Checks a number as ``number()`` does, making its value only when it could
    /// be out of range: a value skipped is still refused where it would be read,
    /// but the ten thousand timestamps of a readiness index cost no conversion.
    mutating func skipNumber() throws(JSONReadError) {
        let scan = try scanNumber()
        // Without an exponent, 308 digits before the point never reach Double's
        // largest (1.8e308); a number that small rounds to zero, which is in range.
        if scan.exponent || scan.integerDigits > 308 { _ = try value(of: scan) }
    }

    /// A number's text read and checked against the grammar, and what making its value needs.
    private struct NumberScan {
        var start: Int
        var end: Int
        var negative: Bool
        var mantissa: UInt64
        var integerDigits: Int
        var scale: Int
        var exact: Bool
        var exponent: Bool
    }

    private mutating func scanNumber() throws(JSONReadError) -> NumberScan {
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
        let integerDigits = max(digits, 1)
        var scale = 0
        if position < count, base[position] == UInt8(ascii: ".") {
            position += 1
            guard position < count, isDigit(base[position]) else { throw fault("expected a digit after '.'") }
            let fraction = accumulate(&mantissa)
            digits += fraction
            scale = -fraction
        }
        var exact = digits <= 19
        let exponent = position < count && base[position] | 0x20 == UInt8(ascii: "e")
        if exponent {
            position += 1
            var exponentNegative = false
            if position < count, base[position] == UInt8(ascii: "+") || base[position] == UInt8(ascii: "-") {
                exponentNegative = base[position] == UInt8(ascii: "-")
                position += 1
            }
            guard position < count, isDigit(base[position]) else { throw fault("expected a digit in the exponent") }
            var exponent: UInt64 = 0
            // More than four digits may have wrapped `exponent`: such a number is
            // left to the slow path whole, never turned into a scale.
            if accumulate(&exponent) <= 4 {
                scale += exponentNegative ? -Int(exponent) : Int(exponent)
            } else {
                exact = false
            }
        }
        return NumberScan(
            start: start, end: position, negative: negative, mantissa: mantissa, integerDigits: integerDigits, scale: scale,
            exact: exact, exponent: exponent)
    }

    private func value(of scan: NumberScan) throws(JSONReadError) -> Double {
        let scale = scan.scale
        // Both operands exact and one rounding: the correctly rounded result, as strtod gives.
        if scan.exact, scan.mantissa < 1 << 53,
           let power = Self.powersOfTen.indices.contains(abs(scale)) ? Self.powersOfTen[abs(scale)] : nil {
            let value = Double(scan.mantissa)
            let result = scale < 0 ? value / power : value * power
            return scan.negative ? -result : result
        }
        let text = String(decoding: UnsafeBufferPointer(start: base + scan.start, count: scan.end - scan.start), as: UTF8.self)
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
