import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// HTTP dates (RFC 9110 §5.6.7): IMF-fixdate, and the obsolete RFC 850 and asctime
/// forms that recipients must still accept.
enum HTTPDate {
    private static let formats = [
        "EEE, dd MMM yyyy HH:mm:ss zzz",
        "EEEE, dd-MMM-yy HH:mm:ss zzz",
        "EEE MMM d HH:mm:ss yyyy",
    ]

    static func parse(_ text: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        return imfFixdate(trimmed) ?? parseWithFormatters(trimmed)
    }

    /// All three formats, with ICU: what `parse` does for anything not canonical.
    static func parseWithFormatters(_ trimmed: String) -> Double? {
        for formatter in parsers {
            if let date = formatter.date(from: trimmed) { return date.timeIntervalSince1970 }
        }
        return nil
    }

    /// Made once: creating a DateFormatter (an ICU formatter underneath) cost more
    /// than the rest of an asset's commit, and every response has dates to read.
    /// DateFormatter is thread-safe for parsing.
    private static let parsers: [DateFormatter] = formats.map { format in
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = format
        return formatter
    }

    /// The canonical IMF-fixdate that servers send ("Sun, 06 Nov 1994 08:49:37 GMT"),
    /// read by hand: ICU's parse cost ~20 µs a date, and a run reads one or two per
    /// asset. Only a date whose every field is canonical — the weekday included —
    /// is read here; anything else goes to the formatters as before.
    private static func imfFixdate(_ text: String) -> Double? {
        let bytes = Array(text.utf8)
        guard bytes.count == 29, bytes[3] == UInt8(ascii: ","), bytes[4] == 0x20, bytes[7] == 0x20, bytes[11] == 0x20,
              bytes[16] == 0x20, bytes[19] == UInt8(ascii: ":"), bytes[22] == UInt8(ascii: ":"), bytes[25] == 0x20,
              bytes[26...28].elementsEqual("GMT".utf8),
              let day = digits(bytes[5...6]), let year = digits(bytes[12...15]),
              let hour = digits(bytes[17...18]), let minute = digits(bytes[20...21]), let second = digits(bytes[23...24]),
              let month = months.firstIndex(where: { $0.elementsEqual(bytes[8...10]) }),
              (1...31).contains(day), year >= 1970, hour < 24, minute < 60, second < 60
        else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        var seconds = timegm(&parts)
        // timegm normalises 31 Feb into March; such a date is left to ICU.
        var check = tm()
        guard gmtime_r(&seconds, &check) != nil, check.tm_mday == Int32(day), check.tm_mon == Int32(month),
              weekdays[Int(check.tm_wday)].elementsEqual(bytes[0...2]) else { return nil }
        return Double(seconds)
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"].map { Array($0.utf8) }
    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"].map { Array($0.utf8) }

    private static func digits(_ bytes: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    static func format(_ epoch: Double) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: Date(timeIntervalSince1970: epoch))
    }
}
