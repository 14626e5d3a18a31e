extension AssetRef {
    /// A ref file's bytes, read by the manifest's strict reader: nil for anything
    /// that is not a complete ref (bad JSON, a duplicate key, a missing or
    /// mistyped field). `prefetch plan` reads one ref per URL, and Foundation's
    /// JSONDecoder took half of that time.
    init?(json bytes: [UInt8]) {
        let read = bytes.withUnsafeBytes { buffer in
            try? JSONReader.read(buffer, name: "ref") { json throws(JSONReadError) -> AssetRef? in
                guard try json.expectObject() else { return nil }
                var fields = Fields()
                try json.object(RefKey.self) { json, key throws(JSONReadError) in try fields.read(key, from: &json) }
                return fields.ref
            }
        }
        guard let ref = read ?? nil else { return nil }
        self = ref
    }
}

private enum RefKey: String, JSONObjectKey {
    case url, object, etag, bytes, kind, kinds
    case lastModified = "last_modified", fetchedAt = "fetched_at", maxAge = "max_age", acceptsRanges = "accept_ranges"
    static let table = JSONKeyTable(Self.self)
}

/// What the ref's members gave; a ref is whole only when every required one did.
private struct Fields {
    var url, object, etag, lastModified, kind: String?
    var kinds: [String]?
    var acceptsRanges: Bool?
    var fetchedAt, maxAge, bytes: Double?

    mutating func read(_ key: RefKey?, from json: inout JSONReader) throws(JSONReadError) {
        switch key {
        case .url?: url = try json.requiredString()
        case .object?: object = try json.requiredString()
        case .kind?: kind = try json.requiredString()
        case .kinds?: kinds = try json.optionalArray { json throws(JSONReadError) in try json.requiredString() }
        case .etag?: etag = try json.optionalString()
        case .lastModified?: lastModified = try json.optionalString()
        case .fetchedAt?: fetchedAt = try json.optionalNumber()
        case .maxAge?: maxAge = try json.optionalNumber()
        case .bytes?: bytes = try json.optionalNumber()
        case .acceptsRanges?: acceptsRanges = try json.optionalBool()
        case nil: try json.skip()
        }
    }

    var ref: AssetRef? {
        guard let url, let object, let fetchedAt, let bytes, let kind = kind.flatMap(AssetKind.init(rawValue:)),
              bytes >= 0, bytes <= 0x1p53, bytes.rounded() == bytes
        else { return nil }
        var ref = AssetRef(
            url: url, object: object, etag: etag, lastModified: lastModified, fetchedAt: fetchedAt, maxAge: maxAge,
            bytes: Int64(bytes), kind: kind)
        ref.acceptsRanges = acceptsRanges == true ? true : nil
        if let kinds {
            // Read from disk, so not taken on trust: known kinds, none twice, and
            // `kind` the first of them, as the store writes them; anything else
            // is no ref, and the URL is fetched again.
            let known = kinds.compactMap(AssetKind.init(rawValue:))
            let passed = AssetKinds(known)
            guard known.count == kinds.count, passed.count == kinds.count, passed.first == kind else { return nil }
            ref.passedKinds = passed
        }
        return ref
    }
}
