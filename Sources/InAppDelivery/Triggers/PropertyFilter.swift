/// One filter of `property_filters`, compiled.
enum PropertyFilter: Sendable {
    case compare(key: String, type: PropertyType, comparator: Comparator, operand: FilterOperand)
    /// Location and unknown comparators or types: kept so that the rest of the
    /// manifest works, and never passing (docs/manifest.md).
    case unsupported

    /// `now` is the engine's clock, never the wall clock, so that "less than X
    /// seconds ago" replays the same way in a simulation.
    func passes(_ properties: [String: EventProperty], now: Double) -> Bool {
        guard case .compare(let key, let type, let comparator, let operand) = self else { return false }
        guard let value = properties[key].flatMap(type.value(of:)) else { return comparator.passesWithoutValue }
        switch (comparator, operand) {
        case (.exists, _): return true
        case (.doesNotExist, _): return false
        case (.equals, .value(let expected)): return value == expected
        case (.notEqual, .value(let expected)): return value != expected
        case (.greaterThan, .value(let expected)): return order(value, expected, >)
        case (.greaterThanOrEqual, .value(let expected)): return order(value, expected, >=)
        case (.lessThan, .value(let expected)): return order(value, expected, <)
        case (.lessThanOrEqual, .value(let expected)): return order(value, expected, <=)
        case (.matches, .pattern(let pattern)): return Self.matches(value, pattern)
        case (.doesNotMatch, .pattern(let pattern)): return !Self.matches(value, pattern)
        case (.lessThanSecondsAgo, .seconds(let seconds)): return value.number.map { now - $0 < seconds } ?? false
        case (.moreThanSecondsAgo, .seconds(let seconds)): return value.number.map { now - $0 > seconds } ?? false
        default:
            // The parser pairs every comparator with its operand kind; no other pair is built.
            return false
        }
    }

    private func order(_ value: FilterValue, _ expected: FilterValue, _ holds: (Double, Double) -> Bool) -> Bool {
        guard let lhs = value.number, let rhs = expected.number else { return false }
        return holds(lhs, rhs)
    }

    private static func matches(_ value: FilterValue, _ pattern: FilterPattern) -> Bool {
        guard case .text(let text) = value else { return false }
        return pattern.matches(text)
    }
}
