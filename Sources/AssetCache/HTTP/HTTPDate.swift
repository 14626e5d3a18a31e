#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// HTTP dates (RFC 9110 §5.6.7): IMF-fixdate, and the obsolete RFC 850 and asctime
/// forms that recipients must still accept. Read by hand, byte by byte: a date
/// formatter would link ICU's data into the binary (tens of megabytes on a device)
/// and cost ~20 µs a date, where a run reads one or two per asset.
///
/// As the RFC writes them: names case-sensitive, "GMT" the only zone, fields at
/// their fixed widths. The weekday must be a day's name but is not checked against
/// the date (it is redundant, and a server that gets it wrong still means the
/// date). Anything else is not a date, which the freshness rules treat safely: an
/// unreadable `Expires` is already stale, an unreadable `Last-Modified` gives no
/// heuristic lifetime.
enum HTTPDate {
    static func parse(_ text: String) -> Double? {
        parse(text, now: nil)
    }

    /// `now` (default: the clock) places an RFC 850 date's two-digit year.
    static func parse(_ text: String, now: Double?) -> Double? {
        let bytes = trimmed(Array(text.utf8))
        return imfFixdate(bytes) ?? rfc850(bytes, now: now) ?? asctime(bytes)
    }

    /// "Sun, 06 Nov 1994 08:49:37 GMT"
    private static func imfFixdate(_ bytes: [UInt8]) -> Double? {
        guard bytes.count == 29, isWeekday(bytes[0...2]), bytes[3] == comma, bytes[4] == space, bytes[7] == space,
              bytes[11] == space, bytes[16] == space, bytes[25] == space, bytes[26...].elementsEqual("GMT".utf8),
              let day = digits(bytes[5...6]), let month = month(bytes[8...10]), let year = digits(bytes[12...15])
        else { return nil }
        return epoch(year: year, month: month, day: day, clock: bytes[17...24])
    }

    /// "Sunday, 06-Nov-94 08:49:37 GMT": the weekday spelled out, a two-digit year.
    private static func rfc850(_ bytes: [UInt8], now: Double?) -> Double? {
        guard let end = bytes.firstIndex(of: comma), longWeekdays.contains(where: { $0.elementsEqual(bytes[..<end]) }),
              bytes.count == end + 24
        else { return nil }
        let rest = Array(bytes[(end + 1)...])
        guard rest[0] == space, rest[3] == dash, rest[7] == dash, rest[10] == space, rest[19] == space,
              rest[20...].elementsEqual("GMT".utf8),
              let day = digits(rest[1...2]), let month = month(rest[4...6]), let twoDigitYear = digits(rest[8...9])
        else { return nil }
        return epoch(year: fullYear(twoDigitYear, now: now ?? Double(time(nil))), month: month, day: day, clock: rest[11...18])
    }

    /// "Sun Nov  6 08:49:37 1994": C's asctime, the day padded with a space.
    private static func asctime(_ bytes: [UInt8]) -> Double? {
        guard bytes.count == 24, isWeekday(bytes[0...2]), bytes[3] == space, bytes[7] == space, bytes[10] == space,
              bytes[19] == space, let month = month(bytes[4...6]), let year = digits(bytes[20...23])
        else { return nil }
        let day = bytes[8] == space ? digits(bytes[9...9]) : digits(bytes[8...9])
        guard let day else { return nil }
        return epoch(year: year, month: month, day: day, clock: bytes[11...18])
    }

    /// RFC 9110: a two-digit year is the nearest year with those last two digits
    /// that is not more than 50 years in the future.
    static func fullYear(_ twoDigits: Int, now: Double) -> Int {
        var seconds = time_t(now)
        var parts = tm()
        let thisYear = gmtime_r(&seconds, &parts) != nil ? Int(parts.tm_year) + 1900 : 1970
        let year = thisYear - thisYear % 100 + twoDigits
        if year > thisYear + 50 { return year - 100 }
        return year + 100 <= thisYear + 50 ? year + 100 : year
    }

    /// The date and "HH:MM:SS" as seconds since the epoch, or nil for a date that
    /// does not exist (31 Feb, 24:00:00), which timegm would silently roll over.
    private static func epoch(year: Int, month: Int, day: Int, clock: ArraySlice<UInt8>) -> Double? {
        let base = clock.startIndex
        guard clock.count == 8, clock[base + 2] == colon, clock[base + 5] == colon,
              let hour = digits(clock[base...base + 1]), let minute = digits(clock[base + 3...base + 4]),
              let second = digits(clock[base + 6...base + 7]),
              year >= 1970, (1...31).contains(day), hour < 24, minute < 60, second < 60
        else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        var seconds = timegm(&parts)
        var check = tm()
        guard gmtime_r(&seconds, &check) != nil, check.tm_mday == Int32(day), check.tm_mon == Int32(month) else { return nil }
        return Double(seconds)
    }

    private static let space = UInt8(ascii: " ")
    private static let comma = UInt8(ascii: ",")
    private static let dash = UInt8(ascii: "-")
    private static let colon = UInt8(ascii: ":")
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        .map { Array($0.utf8) }
    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"].map { Array($0.utf8) }
    private static let longWeekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
        .map { Array($0.utf8) }

    private static func month(_ bytes: ArraySlice<UInt8>) -> Int? {
        months.firstIndex(where: { $0.elementsEqual(bytes) })
    }

    private static func isWeekday(_ bytes: ArraySlice<UInt8>) -> Bool {
        weekdays.contains(where: { $0.elementsEqual(bytes) })
    }

    private static func digits(_ bytes: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// Field values may carry spaces and tabs around them (RFC 9110 §5.5).
    private static func trimmed(_ bytes: [UInt8]) -> [UInt8] {
        let isBlank = { (byte: UInt8) in byte == space || byte == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !isBlank($0) }), let last = bytes.lastIndex(where: { !isBlank($0) })
        else { return [] }
        return Array(bytes[first...last])
    }
}
