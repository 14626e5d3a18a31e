import Foundation
import Glibc
import Testing
@testable import AssetCache

/// The hand-read IMF-fixdate agrees with the ICU formatters it stands in for.
@Suite struct HTTPDateTests {
    @Test func canonicalDatesReadAsICUReadsThem() {
        // 64 dates from 1970 to 2103, written without a formatter.
        for step in 0..<64 {
            var seconds = time_t(step) * 65_432_109 + time_t(step * step)
            var parts = tm()
            gmtime_r(&seconds, &parts)
            let text = Self.imfFixdate(parts)
            #expect(HTTPDate.parse(text) == Double(seconds), "\(text)")
            #expect(HTTPDate.parseWithFormatters(text) == Double(seconds), "\(text)")
        }
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777)
    }

    static func imfFixdate(_ parts: tm) -> String {
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }

    @Test(arguments: [
        "Mon, 06 Nov 1994 08:49:37 GMT",  // wrong weekday
        "Sun, 31 Feb 1994 08:49:37 GMT",
        "Sun, 6 Nov 1994 08:49:37 GMT",
        "sun, 06 nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 08:49:37 UTC",
        "Sun, 06 Nov 1994 24:00:00 GMT",
        "Sunday, 06-Nov-94 08:49:37 GMT",
        "Sun Nov  6 08:49:37 1994",
        "  Sun, 06 Nov 1994 08:49:37 GMT ",
        "0",
        "",
    ])
    func anythingElseReadsAsBefore(_ text: String) {
        #expect(HTTPDate.parse(text) == HTTPDate.parseWithFormatters(text.trimmingCharacters(in: .whitespaces)))
    }
}
