/// Typed reads for a document's known keys, with what Swift's `Decodable` made of
/// them: null or absent is nil for an optional value, and any other wrong shape is
/// a ``JSONReader/mismatch(_:)`` naming what was expected there.
extension JSONReader {
    @inline(__always)
    package mutating func optionalString() throws(JSONReadError) -> String? {
        try optional(.string, "a string") { reader throws(JSONReadError) in try reader.string() }
    }

    /// A string where null is not allowed either.
    @inline(__always)
    package mutating func requiredString() throws(JSONReadError) -> String? {
        guard try next() == .string else {
            try mismatch("a string")
            return nil
        }
        return try string()
    }

    @inline(__always)
    package mutating func optionalNumber() throws(JSONReadError) -> Double? {
        try optional(.number, "a number") { reader throws(JSONReadError) in try reader.number() }
    }

    @inline(__always)
    package mutating func optionalBool() throws(JSONReadError) -> Bool? {
        try optional(.bool, "true or false") { reader throws(JSONReadError) in try reader.bool() }
    }

    /// Reads the next value with `read` if it is a `kind`; nil for null.
    @inline(__always)
    private mutating func optional<Value>(
        _ kind: JSONKind, _ expected: String, _ read: (inout JSONReader) throws(JSONReadError) -> Value
    ) throws(JSONReadError) -> Value? {
        switch try next() {
        case kind: return try read(&self)
        case .null: try null()
        default: try mismatch(expected)
        }
        return nil
    }

    /// An array whose elements `element` reads; those it returns nil for (a
    /// mismatch it has noted) are left out.
    @inline(__always)
    package mutating func optionalArray<Element>(
        _ element: (inout JSONReader) throws(JSONReadError) -> Element?
    ) throws(JSONReadError) -> [Element]? {
        try optional(.array, "an array") { reader throws(JSONReadError) in try reader.requiredArray(element) } ?? nil
    }

    @inline(__always)
    package mutating func requiredArray<Element>(
        _ element: (inout JSONReader) throws(JSONReadError) -> Element?
    ) throws(JSONReadError) -> [Element]? {
        guard try next() == .array else {
            try mismatch("an array")
            return nil
        }
        var elements: [Element] = []
        try array { reader throws(JSONReadError) in
            if let value = try element(&reader) { elements.append(value) }
        }
        return elements
    }

    /// An object kept whole, or nil for null.
    package mutating func optionalMembers() throws(JSONReadError) -> [String: JSONValue]? {
        try optionalObject() ? try members() : nil
    }

    /// Whether an object follows, for the caller to read; null is read past, and
    /// anything else noted as a mismatch and skipped.
    @inline(__always)
    package mutating func optionalObject() throws(JSONReadError) -> Bool {
        try optional(.object, "an object") { _ throws(JSONReadError) in true } ?? false
    }

    /// Whether the next value is an object; if not, it is noted as a mismatch and skipped.
    @inline(__always)
    package mutating func expectObject() throws(JSONReadError) -> Bool {
        if try next() == .object { return true }
        try mismatch("an object")
        return false
    }

    /// The mismatch noted so far, which is then forgotten: for a value whose
    /// mismatches count only once more of the document is known.
    @inline(__always)
    package mutating func takeMismatch() -> JSONReadError? {
        guard mismatched else { return nil }
        defer { mismatch = nil }
        return mismatch
    }
}
