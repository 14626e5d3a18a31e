import AssetCache

/// A property of a custom event or a purchase, as the app logged it. Dates are a
/// type of their own, as in the SDKs, because filters compare them with the clock.
public enum EventProperty: Sendable, Hashable {
    case string(String)
    case number(Double)
    case boolean(Bool)
    /// Epoch seconds.
    case date(Double)

    /// JSON has no date type: a date arrives as an ISO 8601 string and stays a
    /// string here; a `date` filter reads it as a date (see ``PropertyType``).
    /// Null, arrays and objects give nil: no filter can test them, so they count
    /// as missing.
    public init?(json: JSONValue) {
        switch json {
        case .string(let value): self = .string(value)
        case .number(let value): self = .number(value)
        case .bool(let value): self = .boolean(value)
        case .null, .array, .object: return nil
        }
    }

    /// The properties of an event line, keeping only those a filter can test.
    public static func properties(_ json: [String: JSONValue]) -> [String: EventProperty] {
        json.compactMapValues(EventProperty.init(json:))
    }
}
