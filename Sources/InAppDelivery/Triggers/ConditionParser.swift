import AssetCache

/// Compiles the `trigger_condition` entries of one action (the tables of docs/manifest.md).
struct ConditionParser {
    var filterParser = PropertyFilterParser()
    var warnings: [ManifestWarning] = []

    /// The filters' warnings join the condition's own as each is compiled, so
    /// that all come in manifest order.
    mutating func condition(_ condition: TriggerCondition, path: String) throws(ManifestError) -> ConditionMatcher {
        defer {
            warnings += filterParser.warnings
            filterParser.warnings = []
        }
        return try compile(condition, path: path)
    }

    private mutating func compile(_ condition: TriggerCondition, path: String) throws(ManifestError) -> ConditionMatcher {
        let data = condition.data
        switch condition.type {
        case "open":
            return .sessionStart
        case "purchase", "purchase_property":
            return .purchase(
                productID: try optionalString(data["product_id"], path: "\(path).data.product_id"),
                filters: try filters(data["property_filters"], path: "\(path).data.property_filters"))
        case "custom_event", "custom_event_property":
            guard let name = try optionalString(data["event_name"], path: "\(path).data.event_name") else {
                throw ManifestError(path: "\(path).data.event_name", "a custom event trigger needs an event name")
            }
            return .customEvent(
                name: name,
                filters: try filters(data["property_filters"], path: "\(path).data.property_filters"))
        case "push_click":
            return .pushClick(campaignID: try optionalString(data["campaign_id"], path: "\(path).data.campaign_id"))
        default:
            warnings.append(ManifestWarning(
                .unknownTriggerType, path: "\(path).type", "unknown trigger type '\(condition.type)'; it never fires",
                suggestion: TriggerTypeSuggestion.suggestion(for: condition.type)))
            return .never
        }
    }

    /// Compiled, then judged together: filters each fine alone may contradict
    /// one another (`price > 10` and `price < 5`).
    private mutating func filters(_ json: JSONValue?, path: String) throws(ManifestError) -> PropertyFilters {
        let filters = try filterParser.filters(json, path: path)
        if let contradiction = FilterContradiction.find(in: filters) {
            warnings.append(ManifestWarning(.filterNeverPasses, path: path, "\(contradiction); the condition never fires"))
        }
        return filters
    }

    private func optionalString(_ json: JSONValue?, path: String) throws(ManifestError) -> String? {
        switch json {
        case nil, .null?: return nil
        case .string(let text)?: return text.isEmpty ? nil : text
        default: throw ManifestError(path: path, "expected a string")
        }
    }
}
