/// Strings, the tokens most of a manifest is made of: checked in the one pass
/// (escapes, surrogate pairs, control characters, UTF-8) and left undecoded
/// until a reader keeps one.
extension JSONTokenizer {
    /// A string at the current quote: consumed and checked (escapes, surrogate
    /// pairs, control characters, UTF-8), its contents not yet decoded.
    mutating func string() throws(JSONReadError) -> JSONString {
        let start = position + 1
        // A local cursor, stored back only where the loop leaves: the hot loops stay in registers.
        var index = start
        var escaped = false
        var invalidUTF8 = false
        while true {
            while count &- index >= 8 {
                let special = Self.special(UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)))
                if special != 0 {
                    // Straight to the first byte that ends the run (the lowest flag is exact).
                    index &+= special.trailingZeroBitCount &>> 3
                    break
                }
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
    static func plain(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte < 0x80 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\")
    }

    /// The high bit of each of eight bytes (the first in the lowest) that ends a
    /// plain run: a quote, backslash, control character or non-ASCII byte (the
    /// bit tricks of "Bit Twiddling Hacks": a byte of `word ^ pattern` is zero
    /// where `word` has `pattern`'s byte). A borrow can flag a byte above a
    /// flagged one, never below it: the lowest flag is always a real one.
    @inline(__always)
    static func special(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func zeroByte(_ value: UInt64) -> UInt64 { (value &- ones) & ~value & highs }
        let control = (word &- ones &* 0x20) & ~word & highs
        return word & highs | control | zeroByte(word ^ (ones &* 0x22)) | zeroByte(word ^ (ones &* 0x5C))
    }

    /// The length of the well-formed UTF-8 sequence at the current byte, or nil.
    func utf8Sequence() -> Int? {
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
    mutating func escape() throws(JSONReadError) {
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

    mutating func hex4() throws(JSONReadError) -> UInt32 {
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
}
