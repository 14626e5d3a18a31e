/// The header fields of the final response only: a redirect's or a failed
/// attempt's headers (say, its ETag) must never be stored against the asset.
public struct ResponseHeaders: Sendable, Equatable {
    /// Lower-cased names. A repeated field is joined with ", " (RFC 9110 §5.3).
    public var fields: [String: String]

    public init(fields: [String: String] = [:]) {
        var lowered: [String: String] = [:]
        for (name, value) in fields { lowered[name.lowercased()] = value }
        self.fields = lowered
    }

    public subscript(name: String) -> String? { fields[name.lowercased()] }

    public var etag: String? { self["etag"] }
    public var lastModified: String? { self["last-modified"] }
    public var cacheControl: String? { self["cache-control"] }
    public var expires: String? { self["expires"] }
    public var date: String? { self["date"] }
    public var age: String? { self["age"] }
    public var contentType: String? { self["content-type"] }

    mutating func append(name: String, value: String) {
        let key = name.lowercased()
        if let existing = fields[key] {
            fields[key] = existing + ", " + value
        } else {
            fields[key] = value
        }
    }
}
