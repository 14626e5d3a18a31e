/// Where a string the tokenizer has checked lies in the text. Only what a reader
/// keeps is ever made into a `String`; keys are matched on these bytes.
struct JSONString {
    /// After the opening quote, and at the closing one.
    var start: Int
    var end: Int
    /// Whether it holds a backslash, so that its bytes are not yet its value.
    var escaped: Bool

    /// The value of `raw`, the checked contents of a string (escapes included).
    static func decode(_ raw: UnsafeBufferPointer<UInt8>, escaped: Bool) -> String {
        guard escaped else { return String(decoding: raw, as: UTF8.self) }
        return String(decoding: unescape(raw), as: UTF8.self)
    }

    /// The UTF-8 bytes `raw` stands for. `raw` has been checked, so every escape
    /// is complete and every surrogate paired.
    static func unescape(_ raw: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(raw.count)
        var index = 0
        while index < raw.count {
            let byte = raw[index]
            index += 1
            guard byte == UInt8(ascii: "\\") else {
                bytes.append(byte)
                continue
            }
            let escape = raw[index]
            index += 1
            switch escape {
            case UInt8(ascii: "b"): bytes.append(0x08)
            case UInt8(ascii: "f"): bytes.append(0x0C)
            case UInt8(ascii: "n"): bytes.append(0x0A)
            case UInt8(ascii: "r"): bytes.append(0x0D)
            case UInt8(ascii: "t"): bytes.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = hex4(raw, at: index)
                index += 4
                if scalar >= 0xD800 {
                    if scalar < 0xDC00 {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (hex4(raw, at: index + 2) - 0xDC00)
                        index += 6
                    }
                }
                bytes.append(contentsOf: UTF8.encode(Unicode.Scalar(scalar)!)!)
            default: bytes.append(escape)  // " \ /
            }
        }
        return bytes
    }

    private static func hex4(_ raw: UnsafeBufferPointer<UInt8>, at index: Int) -> UInt32 {
        (index..<index + 4).reduce(0) { value, offset in value << 4 | UInt32(hexValue(raw[offset])!) }
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Byte equality, written out: the generic `elementsEqual` was a tenth of
    /// the reading time, keys being compared far more often than read.
    static func same(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Bool {
        guard left.count == right.count else { return false }
        guard let a = left.baseAddress, let b = right.baseAddress else { return true }
        var index = 0
        while left.count &- index >= 8 {
            let wordA = UnsafeRawPointer(a + index).loadUnaligned(as: UInt64.self)
            guard wordA == UnsafeRawPointer(b + index).loadUnaligned(as: UInt64.self) else { return false }
            index &+= 8
        }
        while index < left.count {
            guard a[index] == b[index] else { return false }
            index &+= 1
        }
        return true
    }
}
