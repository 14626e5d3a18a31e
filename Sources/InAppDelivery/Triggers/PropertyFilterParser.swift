import AssetCache
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Compiles `property_filters`, naming the JSON path of anything wrong so that a
/// campaign author can find it: `...property_filters[0][1].property_value`.
/// What the device merely cannot evaluate (location, unknown comparators or
/// types) is a warning, since servers add those before devices learn them.
struct PropertyFilterParser {
    var warnings: [ManifestWarning] = []

    mutating func filters(_ json: JSONValue?, path: String) throws(ManifestError) -> PropertyFilters {
        guard let json, json != .null else { return .none }
        guard case .array(let groups) = json else { throw ManifestError(path: path, "expected an array of arrays") }
        var result: [[PropertyFilter]] = []
        for (index, group) in groups.enumerated() {
            guard case .array(let filters) = group else {
                throw ManifestError(path: "\(path)[\(index)]", "expected an array of filters")
            }
            if filters.isEmpty { warnings.append(ManifestWarning(.filterNeverPasses, path: "\(path)[\(index)]", "an empty group of filters never passes")) }
            var compiled: [PropertyFilter] = []
            for (inner, filter) in filters.enumerated() {
                compiled.append(try self.filter(filter, path: "\(path)[\(index)][\(inner)]"))
            }
            result.append(compiled)
        }
        return PropertyFilters(groups: result)
    }

    mutating func filter(_ json: JSONValue, path: String) throws(ManifestError) -> PropertyFilter {
        guard case .object(let object) = json else { throw ManifestError(path: path, "expected an object") }
        guard case .string(let key)? = object["property_key"], !key.isEmpty else {
            throw ManifestError(path: "\(path).property_key", "expected a non-empty string")
        }
        guard case .string(let typeName)? = object["property_type"] else {
            throw ManifestError(path: "\(path).property_type", "expected one of string, number, boolean, date")
        }
        guard case .number(let number)? = object["comparator"], let code = Int(exactly: number) else {
            throw ManifestError(path: "\(path).comparator", "expected an integer")
        }
        guard let type = PropertyType(rawValue: typeName.lowercased()) else {
            warnings.append(ManifestWarning(
                .filterNeverPasses, path: "\(path).property_type", "unknown type '\(typeName)'; this filter never passes",
                suggestion: Suggestion.closest(to: typeName.lowercased(), among: PropertyType.allCases.map(\.rawValue))))
            return .unsupported
        }
        guard let comparator = Comparator(rawValue: code) else {
            let what = Comparator.location.contains(code) ? "location comparator" : "unknown comparator"
            warnings.append(ManifestWarning(.filterNeverPasses, path: "\(path).comparator", "\(what) \(code); this filter never passes"))
            return .unsupported
        }
        guard type.comparators.contains(comparator) else {
            warnings.append(ManifestWarning(
                .filterNeverPasses, path: "\(path).comparator",
                "comparator \(code) does not apply to \(type.rawValue) properties; this filter never passes"))
            return .unsupported
        }
        let operand = try self.operand(object["property_value"], type: type, comparator: comparator, path: "\(path).property_value")
        return .compare(key: key, type: type, comparator: comparator, operand: operand)
    }

    private func operand(
        _ json: JSONValue?, type: PropertyType, comparator: Comparator, path: String
    ) throws(ManifestError) -> FilterOperand {
        switch comparator.operandKind {
        case nil:
            return .none
        case .pattern?:
            guard case .string(let pattern)? = json else { throw ManifestError(path: path, "expected a regular expression string") }
            do {
                return .pattern(try FilterPattern(pattern))
            } catch {
                throw ManifestError(path: path, "'\(pattern)' is not a valid regular expression")
            }
        case .seconds?:
            guard case .number(let seconds)? = json, seconds.isFinite, seconds >= 0 else {
                throw ManifestError(path: path, "expected a number of seconds")
            }
            return .seconds(seconds)
        case .value?:
            return .value(try value(json, type: type, path: path))
        }
    }

    private func value(_ json: JSONValue?, type: PropertyType, path: String) throws(ManifestError) -> FilterValue {
        switch (type, json) {
        case (.string, .string(let text)?): return .text(text)
        case (.number, .number(let number)?) where number.isFinite: return .number(number)
        case (.boolean, .bool(let flag)?): return .boolean(flag)
        case (.date, .number(let epoch)?) where epoch.isFinite: return .number(epoch)
        case (.date, .string(let text)?):
            guard let epoch = ISODate.epoch(text) else { throw ManifestError(path: path, "'\(text)' is not an ISO 8601 date-time") }
            return .number(epoch)
        default:
            let expected = switch type {
            case .string: "a string"
            case .number: "a number"
            case .boolean: "true or false"
            case .date: "epoch seconds or an ISO 8601 date-time"
            }
            throw ManifestError(path: path, "expected \(expected) for a \(type.rawValue) filter")
        }
    }
}
