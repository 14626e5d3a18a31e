#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import AssetCache

/// The three forms of RFC 9110 §5.6.7, read by hand, against dates written from
/// gmtime's fields.
@Suite struct HTTPDateTests {
    /// 64 dates from 1970 to 2103, each written in the three forms.
    @Test func everyFormReadsBackItsSeconds() {
        for step in 0..<64 {
            var seconds = time_t(step) * 65_432_109 + time_t(step * step)
            var parts = tm()
            gmtime_r(&seconds, &parts)
            #expect(HTTPDate.parse(Self.imfFixdate(parts)) == Double(seconds), "\(Self.imfFixdate(parts))")
            #expect(HTTPDate.parse(Self.asctime(parts)) == Double(seconds), "\(Self.asctime(parts))")
            // The two-digit year is placed against a clock in the same year.
            let rfc850 = Self.rfc850(parts)
            #expect(HTTPDate.parse(rfc850, now: Double(seconds)) == Double(seconds), "\(rfc850)")
        }
    }

    @Test func theRFCsExamplesAreTheSameInstant() {
        let instant = 784_111_777.0
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == instant)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == instant)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == instant)
        #expect(HTTPDate.parse("  Sun, 06 Nov 1994 08:49:37 GMT\t") == instant)
        #expect(HTTPDate.parse("Thursday, 01-Jan-70 00:00:00 GMT", now: 1_000_000_000) == 0)
    }

    /// The weekday is redundant: a wrong one does not hide the date.
    @Test func aWrongWeekdayIsIgnored() {
        #expect(HTTPDate.parse("Mon, 06 Nov 1994 08:49:37 GMT") == 784_111_777)
        #expect(HTTPDate.parse("Monday, 06-Nov-94 08:49:37 GMT") == 784_111_777)
        #expect(HTTPDate.parse("Mon Nov  6 08:49:37 1994") == 784_111_777)
    }

    /// RFC 9110: a two-digit year more than 50 years ahead is in the past century.
    @Test func twoDigitYearsFollowTheFiftyYearRule() throws {
        let in2026 = try #require(HTTPDate.parse("Sun, 01 Mar 2026 00:00:00 GMT"))
        #expect(HTTPDate.fullYear(94, now: in2026) == 1994)
        #expect(HTTPDate.fullYear(76, now: in2026) == 2076)
        #expect(HTTPDate.fullYear(77, now: in2026) == 1977)
        #expect(HTTPDate.fullYear(26, now: in2026) == 2026)
        #expect(HTTPDate.fullYear(0, now: in2026) == 2000)
        let in2090 = try #require(HTTPDate.parse("Sun, 01 Jan 2090 00:00:00 GMT"))
        #expect(HTTPDate.fullYear(30, now: in2090) == 2130)
        #expect(HTTPDate.fullYear(40, now: in2090) == 2140)
        #expect(HTTPDate.fullYear(41, now: in2090) == 2041)
        #expect(HTTPDate.fullYear(89, now: in2090) == 2089)
    }

    @Test(arguments: [
        "Sun, 31 Feb 1994 08:49:37 GMT",  // no such day
        "Sun, 06 Nov 1994 24:00:00 GMT",
        "Sun, 06 Nov 1994 08:60:37 GMT",
        "Sun, 06 Nov 1994 08:49:37 UTC",  // GMT is the only zone
        "Sun, 06 Nov 1994 08:49:37 +0000",
        "Sun, 06 Nov 1994 08:49:37",
        "Sun, 6 Nov 1994 08:49:37 GMT",  // fixed widths
        "Sun, 06 Nov 94 08:49:37 GMT",
        "sun, 06 nov 1994 08:49:37 GMT",  // case-sensitive
        "Sunday, 06 Nov 1994 08:49:37 GMT",
        "Sun, 06-Nov-94 08:49:37 GMT",
        "Sunday, 06-Nov-1994 08:49:37 GMT",
        "Sunday, 06-Nov-94 08:49:37",
        "Sund, 06-Nov-94 08:49:37 GMT",
        "Sun Nov 6 08:49:37 1994",
        "Sun Nov  6 08:49:37 1994 GMT",
        "Sun Nov 06 08:49:37 94",
        "Sun, 06 Nov 1969 08:49:37 GMT",  // before the epoch
        "Sun, 06 Nov 1994 08:49:37 GMT, Mon, 07 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 0x:49:37 GMT",
        "Sun, 06 Nov 1994 08:49:37 GMT\u{0}",
        "Sun, 06 Nov 1994 08:49:37 GMT\u{e9}",
        ",",
        "0",
        "",
    ])
    func anythingElseIsNotADate(_ text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    static let longWeekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }

    static func clock(_ parts: tm) -> String {
        "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
    }

    static func imfFixdate(_ parts: tm) -> String {
        "\(weekdays[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(clock(parts)) GMT"
    }

    static func rfc850(_ parts: tm) -> String {
        "\(longWeekdays[Int(parts.tm_wday)]), \(two(parts.tm_mday))-\(months[Int(parts.tm_mon)])-\(two(parts.tm_year % 100)) "
            + "\(clock(parts)) GMT"
    }

    static func asctime(_ parts: tm) -> String {
        let day = parts.tm_mday < 10 ? " \(parts.tm_mday)" : "\(parts.tm_mday)"
        return "\(weekdays[Int(parts.tm_wday)]) \(months[Int(parts.tm_mon)]) \(day) \(clock(parts)) \(parts.tm_year + 1900)"
    }
}
