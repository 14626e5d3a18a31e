/// Filters of one condition that can never pass together (docs/manifest.md,
/// "Property filters"). Judged conservatively: only groups of a single filter
/// are certain to be needed (a group passes when any of its filters does), and
/// only two such filters on one property are compared, in these cases:
/// - one needs the property (`exists`, `equals`, an order, a pattern, a date
///   age) and the other says it does not exist (12);
/// - both need it, as types no property can be at once (a number and a string);
/// - both compare it to values (1, 3–6) that no one value satisfies: `> 10` and
///   `< 5`, `= 3` and `= 4`; or one says it equals what the other says it does not (1 and 2).
enum FilterContradiction {
    static func find(in filters: PropertyFilters) -> String? {
        var needed: [(group: Int, key: String, type: PropertyType, comparator: Comparator, operand: FilterOperand)] = []
        for (index, group) in filters.groups.enumerated() where group.count == 1 {
            guard case .compare(let key, let type, let comparator, let operand) = group[0] else { continue }
            for earlier in needed where earlier.key == key {
                if let why = conflict((earlier.type, earlier.comparator, earlier.operand), (type, comparator, operand)) {
                    return "'\(key)' \(why) (groups [\(earlier.group)] and [\(index)])"
                }
            }
            needed.append((index, key, type, comparator, operand))
        }
        return nil
    }

    private typealias Filter = (type: PropertyType, comparator: Comparator, operand: FilterOperand)

    private static func conflict(_ a: Filter, _ b: Filter) -> String? {
        let aNeedsValue = !a.comparator.passesWithoutValue, bNeedsValue = !b.comparator.passesWithoutValue
        if aNeedsValue && b.comparator == .doesNotExist || bNeedsValue && a.comparator == .doesNotExist {
            return "must exist and not exist"
        }
        guard aNeedsValue, bNeedsValue else {
            return a.type == b.type ? equalAndNot(a, b) ?? equalAndNot(b, a) : nil
        }
        guard compatible(a.type, b.type) else { return "must be a \(a.type.rawValue) and a \(b.type.rawValue)" }
        guard a.type == b.type, case .value(let x) = a.operand, case .value(let y) = b.operand else { return nil }
        if let x = x.number, let y = y.number {
            let first = Bound(a.comparator, x), second = Bound(b.comparator, y)
            return first.overlaps(second) ? nil : "must be \(first) and \(second)"
        }
        if a.comparator == .equals, b.comparator == .equals, x != y {
            return "must equal \(describe(x)) and \(describe(y))"
        }
        return nil
    }

    private static func equalAndNot(_ a: Filter, _ b: Filter) -> String? {
        guard a.comparator == .equals, b.comparator == .notEqual,
              case .value(let x) = a.operand, case .value(let y) = b.operand, x == y else { return nil }
        return "must equal \(describe(x)) and not equal it"
    }

    /// A string property in ISO 8601 form is a date too; no other property is two types.
    private static func compatible(_ a: PropertyType, _ b: PropertyType) -> Bool {
        a == b || Set([a, b]) == [.string, .date]
    }

    private static func describe(_ value: FilterValue) -> String {
        switch value {
        case .text(let text): "'\(text)'"
        case .number(let number): number.formatted
        case .boolean(let flag): "\(flag)"
        }
    }

    /// The values one comparison allows, as an interval.
    private struct Bound: CustomStringConvertible {
        var lower = -Double.infinity, lowerIncluded = false
        var upper = Double.infinity, upperIncluded = false
        let text: String

        init(_ comparator: Comparator, _ value: Double) {
            let symbol: String
            switch comparator {
            case .greaterThan: (lower, symbol) = (value, ">")
            case .greaterThanOrEqual: (lower, lowerIncluded, symbol) = (value, true, ">=")
            case .lessThan: (upper, symbol) = (value, "<")
            case .lessThanOrEqual: (upper, upperIncluded, symbol) = (value, true, "<=")
            default: (lower, lowerIncluded, upper, upperIncluded, symbol) = (value, true, value, true, "=")
            }
            text = "\(symbol) \(value.formatted)"
        }

        var description: String { text }

        func overlaps(_ other: Bound) -> Bool {
            Self.below(lower, lowerIncluded, other.upper, other.upperIncluded)
                && Self.below(other.lower, other.lowerIncluded, upper, upperIncluded)
        }

        /// Whether some value is at least the lower bound and at most the upper one.
        private static func below(_ lower: Double, _ lowerIncluded: Bool, _ upper: Double, _ upperIncluded: Bool) -> Bool {
            lower < upper || (lower == upper && lowerIncluded && upperIncluded)
        }
    }
}

extension Double {
    /// `10`, not `10.0`: as a manifest would write it.
    fileprivate var formatted: String {
        self == rounded() && abs(self) < 1e15 ? String(Int64(self)) : String(self)
    }
}
