#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// "%.Nf" without Foundation's `String(format:)`, which needs ICU: C's own
/// printf, whose "C" locale (Swift never calls setlocale) writes a dot.
package enum DecimalText {
    package static func fixed(_ value: Double, digits: Int) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        let count = withVaList([value]) { arguments in
            vsnprintf(&buffer, buffer.count, "%.\(max(0, min(digits, 17)))f", arguments)
        }
        // A value too large for the buffer (above 1e45 or so) is no duration or size anyone prints.
        guard count >= 0, count < buffer.count else { return "\(value)" }
        return String(decoding: buffer.prefix(Int(count)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
