#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// ISO 8601 date-times, the only way a date travels in JSON event properties
/// and in date `property_value`s.
enum ISODate {
    static func epoch(_ text: String) -> Double? {
        // Cheap refusal first: most strings compared against a date filter are not dates.
        guard text.count >= 20, text.utf8.first.map({ (0x30...0x39).contains($0) }) == true else { return nil }
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) {
            return date.timeIntervalSince1970
        }
        return (try? Date.ISO8601FormatStyle().parse(text))?.timeIntervalSince1970
    }
}
