import AssetCache

/// Typed access to the fields of one event line, each failure naming the line
/// and the key.
struct EventFields {
    var object: [String: JSONValue]
    var line: Int

    func string(_ key: String) throws(EventFileError) -> String {
        guard let value = try optionalString(key) else { throw EventFileError(line: line, "\"\(key)\" is required") }
        return value
    }

    func optionalString(_ key: String) throws(EventFileError) -> String? {
        switch object[key] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        default: throw EventFileError(line: line, "\"\(key)\" must be a string")
        }
    }

    func optionalNumber(_ key: String) throws(EventFileError) -> Double? {
        switch object[key] {
        case nil, .null?: return nil
        case .number(let value)? where value.isFinite: return value
        default: throw EventFileError(line: line, "\"\(key)\" must be a number")
        }
    }

    func optionalInteger(_ key: String) throws(EventFileError) -> Int? {
        guard let number = try optionalNumber(key) else { return nil }
        guard let value = Int(exactly: number) else { throw EventFileError(line: line, "\"\(key)\" must be a whole number") }
        return value
    }

    func properties() throws(EventFileError) -> [String: EventProperty] {
        switch object["properties"] {
        case nil, .null?: return [:]
        case .object(let properties)?: return EventProperty.properties(properties)
        default: throw EventFileError(line: line, "\"properties\" must be an object")
        }
    }
}
