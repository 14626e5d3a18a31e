/// The integer comparators of `property_filters`, numbered as servers send them
/// (docs/manifest.md).
enum Comparator: Int, Sendable, CaseIterable {
    case equals = 1
    case notEqual = 2
    case greaterThan = 3
    case greaterThanOrEqual = 4
    case lessThan = 5
    case lessThanOrEqual = 6
    case matches = 10
    case exists = 11
    case doesNotExist = 12
    case lessThanSecondsAgo = 15
    case moreThanSecondsAgo = 16
    case doesNotMatch = 17

    /// Location comparators need a device location this engine never has.
    static let location: Set<Int> = [13, 14, 18, 19]

    /// A missing property, or one of the wrong type, cannot equal, match or exist,
    /// so exactly the negative comparators hold for it.
    var passesWithoutValue: Bool {
        self == .notEqual || self == .doesNotExist || self == .doesNotMatch
    }

    /// What `property_value` must hold; nil when the comparator ignores it.
    var operandKind: OperandKind? {
        switch self {
        case .exists, .doesNotExist: nil
        case .matches, .doesNotMatch: .pattern
        case .lessThanSecondsAgo, .moreThanSecondsAgo: .seconds
        case .equals, .notEqual, .greaterThan, .greaterThanOrEqual, .lessThan, .lessThanOrEqual: .value
        }
    }

    enum OperandKind { case value, pattern, seconds }
}
