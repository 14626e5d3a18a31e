/// `property_filters`: an array of arrays in conjunctive normal form. Every inner
/// array needs one passing filter (outer AND, inner OR), so an empty inner array
/// can never pass, while no filters at all always do.
struct PropertyFilters: Sendable {
    var groups: [[PropertyFilter]]

    static let none = PropertyFilters(groups: [])

    func pass(_ properties: [String: EventProperty], now: Double) -> Bool {
        groups.allSatisfy { group in group.contains { $0.passes(properties, now: now) } }
    }
}
