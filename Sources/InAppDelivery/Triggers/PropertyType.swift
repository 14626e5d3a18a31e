#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `property_type` of a filter: which properties it can test and how.
enum PropertyType: String, Sendable, CaseIterable {
    case string, number, boolean, date

    /// Comparators that mean something for the type; any other is loaded with a
    /// warning and never passes, like an unknown one.
    var comparators: Set<Comparator> {
        switch self {
        case .string: [.equals, .notEqual, .matches, .doesNotMatch, .exists, .doesNotExist]
        case .number: [.equals, .notEqual, .greaterThan, .greaterThanOrEqual, .lessThan, .lessThanOrEqual, .exists, .doesNotExist]
        case .boolean: [.equals, .notEqual, .exists, .doesNotExist]
        case .date: [
            .equals, .notEqual, .greaterThan, .greaterThanOrEqual, .lessThan, .lessThanOrEqual,
            .lessThanSecondsAgo, .moreThanSecondsAgo, .exists, .doesNotExist,
        ]
        }
    }

    /// The property seen as this type, or nil when it is of another type (which the
    /// filter treats exactly as a missing property).
    func value(of property: EventProperty) -> FilterValue? {
        switch (self, property) {
        case (.string, .string(let text)): .text(text)
        case (.number, .number(let number)): .number(number)
        case (.boolean, .boolean(let flag)): .boolean(flag)
        case (.date, .date(let epoch)): .number(epoch)
        case (.date, .string(let text)): ISODate.epoch(text).map(FilterValue.number)
        default: nil
        }
    }
}
