/// Times in signed manifests and in messages about them: RFC 3339 in UTC,
/// `2026-12-01T00:00:00Z` (a fraction of a second allowed, then dropped). One
/// spelling only, so that a publisher and a device cannot read one string as
/// two instants: no offsets, no local time, no leap second.
public enum RFC3339Date {
    /// Epoch seconds, or nil when `text` is not of that form or not a real date.
    public static func parse(_ text: String) -> Double? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.count <= 40 else { return nil }
        func digits(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) else { return nil }
                value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
            }
            return value
        }
        let separators: [(Int, UInt8)] = [(4, UInt8(ascii: "-")), (7, UInt8(ascii: "-")), (13, UInt8(ascii: ":")), (16, UInt8(ascii: ":"))]
        guard separators.allSatisfy({ bytes[$0.0] == $0.1 }),
              bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t"),
              let year = digits(0..<4), let month = digits(5..<7), let day = digits(8..<10),
              let hour = digits(11..<13), let minute = digits(14..<16), let second = digits(17..<19),
              (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
              hour < 24, minute < 60, second < 60
        else { return nil }
        var end = 19
        if bytes[end] == UInt8(ascii: ".") {
            end += 1
            guard end < bytes.count - 1, digits(end..<(bytes.count - 1)) != nil else { return nil }
            end = bytes.count - 1
        }
        guard end == bytes.count - 1, bytes[end] == UInt8(ascii: "Z") || bytes[end] == UInt8(ascii: "z") else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        return Double(days * 86_400 + hour * 3_600 + minute * 60 + second)
    }

    /// `2026-12-01T00:00:00Z`, whole seconds; years outside 0000–9999 are clamped
    /// to them, as nothing a manifest can say lies outside.
    public static func format(_ epoch: Double) -> String {
        let limit = Double(daysSinceEpoch(year: 9999, month: 12, day: 31) * 86_400 + 86_399)
        let floor = Double(daysSinceEpoch(year: 0, month: 1, day: 1) * 86_400)
        let seconds = Int(epoch.isNaN ? 0 : min(max(epoch, floor), limit).rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let rest = seconds - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let yearText = String(repeating: "0", count: max(0, 4 - String(year).count)) + String(year)
        return "\(yearText)-\(two(month))-\(two(day))T\(two(rest / 3_600)):\(two(rest % 3_600 / 60)):\(two(rest % 60))Z"
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    // Howard Hinnant's days_from_civil and civil_from_days, proleptic Gregorian.
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
