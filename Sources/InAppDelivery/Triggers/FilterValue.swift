/// A property or a `property_value` reduced to what comparisons need: dates
/// become epoch seconds, so that ordering them is ordering numbers.
enum FilterValue: Sendable, Equatable {
    case text(String)
    case number(Double)
    case boolean(Bool)

    var number: Double? {
        if case .number(let value) = self { return value }
        return nil
    }
}

/// A compiled `property_value`.
enum FilterOperand: Sendable {
    case none
    case value(FilterValue)
    case pattern(FilterPattern)
    case seconds(Double)
}
