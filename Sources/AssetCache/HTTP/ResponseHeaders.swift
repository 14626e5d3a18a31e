/// The header fields of the final response only: a redirect's or a failed
/// attempt's headers (say, its ETag) must never be stored against the asset.
package struct ResponseHeaders: Sendable, Equatable {
    /// Lower-cased names. A repeated field is joined with ", " (RFC 9110 §5.3).
    package var fields: [String: String]

    package init(fields: [String: String] = [:]) {
        var lowered: [String: String] = [:]
        for (name, value) in fields { lowered[name.lowercased()] = value }
        self.fields = lowered
    }

    package subscript(name: String) -> String? { fields[name.lowercased()] }

    /// Validators are stored and sent back to the server, so one with a control
    /// character in it is dropped here, for every caller.
    package var etag: String? { HeaderRules.validator(self["etag"]) }
    package var lastModified: String? { HeaderRules.validator(self["last-modified"]) }
    package var cacheControl: String? { self["cache-control"] }
    package var expires: String? { self["expires"] }
    package var date: String? { self["date"] }
    package var age: String? { self["age"] }
    package var contentType: String? { self["content-type"] }

    mutating func append(name: String, value: String) {
        let key = name.lowercased()
        if let existing = fields[key] {
            fields[key] = existing + ", " + value
        } else {
            fields[key] = value
        }
    }
}

extension ResponseHeaders {
    /// A Content-Encoding other than `identity`: the ranges of the answer (RFC
    /// 9110 §14.1.2) are of the encoded bytes, not the file's, so neither a
    /// resumed download nor a delta can use them; libcurl decodes the body.
    var isEncoded: Bool {
        guard let encoding = self["content-encoding"] else { return false }
        return ResponseHead.trimmed(encoding).lowercased() != "identity"
    }
}
