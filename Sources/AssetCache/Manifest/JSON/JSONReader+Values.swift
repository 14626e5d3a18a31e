/// Values a document does not know the shape of: checked and skipped, or kept
/// whole as ``JSONValue`` (`extras`, condition data, event properties).
extension JSONReader {
    /// Checks the next value and reads past it, keeping nothing.
    package mutating func skip() throws(JSONReadError) {
        switch try next() {
        case .object: try object { reader, _ throws(JSONReadError) in try reader.skip() }
        case .array: try array { reader throws(JSONReadError) in try reader.skip() }
        case .string: _ = try tokens.string()
        case .number: try tokens.skipNumber()
        case .bool: _ = try bool()
        case .null: try null()
        }
    }

    /// The next value, kept whole: for the parts of a document whose shape is open-ended.
    package mutating func value() throws(JSONReadError) -> JSONValue {
        switch try next() {
        case .object:
            return .object(try members())
        case .array:
            var elements: [JSONValue] = []
            try array { reader throws(JSONReadError) in elements.append(try reader.value()) }
            return .array(elements)
        case .string:
            return .string(try string())
        case .number:
            return .number(try tokens.number())
        case .bool:
            return .bool(try bool())
        case .null:
            try null()
            return .null
        }
    }

    /// An object's members, kept whole.
    @inline(__always)
    package mutating func members() throws(JSONReadError) -> [String: JSONValue] {
        // Room for a few members from the start: growing from empty was half the cost.
        var members = [String: JSONValue](minimumCapacity: 4)
        try object { reader, key throws(JSONReadError) in members[key.string] = try reader.value() }
        return members
    }
}
