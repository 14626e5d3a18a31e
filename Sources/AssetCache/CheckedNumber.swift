/// Every number that enters from outside — a header, a flag, a cache file — is
/// read here, by rules that cannot trap: text that is not a number of the
/// expected shape is nil, a value out of range is clamped or nil as each
/// function says, and no conversion to an integer type ever sees infinity,
/// NaN or a value past its range. (JSON numbers are read by JSONTokenizer,
/// which refuses what a double cannot hold.)
package enum CheckedNumber {
    /// RFC 9111 §1.2.2 delta-seconds (`max-age`, `Age`, `Retry-After`): ASCII
    /// digits only — no sign, fraction, exponent, `inf` or hex — and a value past
    /// 2^31 is 2^31, as the RFC says to treat it. nil for anything else.
    package static func deltaSeconds<S: StringProtocol>(_ text: S) -> Double? {
        let limit = 2_147_483_648.0
        var value = 0.0
        var digits = 0
        for byte in text.utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = min(value * 10 + Double(byte - UInt8(ascii: "0")), limit)
            digits += 1
        }
        return digits > 0 ? value : nil
    }

    /// A decimal number of seconds as a person types it on a command line —
    /// `30`, `0.5` — at most `limit`; nil for `inf`, `nan`, `1e300`, `-1`, `0x10`.
    package static func seconds<S: StringProtocol>(_ text: S, atMost limit: Double) -> Double? {
        var sawDigit = false
        var sawPoint = false
        for byte in text.utf8 {
            if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                sawDigit = true
            } else if byte == UInt8(ascii: "."), !sawPoint {
                sawPoint = true
            } else {
                return nil
            }
        }
        guard sawDigit, text.utf8.count <= 32, let value = Double(String(text)), value.isFinite, value <= limit else { return nil }
        return value
    }

    /// `seconds` in whole milliseconds, rounded up, clamped to 0…`limit` seconds:
    /// NaN is 0 and infinity is the limit, so a timeout or deadline that came from
    /// outside can only be too short or too long, never a trap.
    package static func milliseconds(_ seconds: Double, atMost limit: Double = maxSeconds) -> Int64 {
        guard !seconds.isNaN, seconds > 0 else { return 0 }
        return Int64((min(seconds, limit) * 1000).rounded(.up))
    }

    /// `seconds` as a Duration, clamped the same way.
    package static func duration(seconds: Double, atMost limit: Double = maxSeconds) -> Duration {
        .milliseconds(milliseconds(seconds, atMost: limit))
    }

    /// About 317 years: longer than any wait or timeout means, and past any
    /// epoch time a flag names (2286); in milliseconds, far inside Int64.
    package static let maxSeconds: Double = 1e10
}
