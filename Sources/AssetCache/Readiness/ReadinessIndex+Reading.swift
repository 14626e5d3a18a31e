extension ReadinessIndex {
    /// Why an index file could not be read: it sits in the cache directory, so
    /// its text is not taken on trust.
    public struct ReadError: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Reads an index by the manifest's strict one-pass reader; keys it does not
    /// know are skipped (a later 1.x may add some), a missing or mistyped one
    /// refuses the file.
    ///
    /// What a reader leaves out is still checked, but not kept: with `only`,
    /// the messages whose ids it holds are the only ones kept (`prefetch ready
    /// ID`); without `triggers`, every message's `triggers` is empty (text
    /// output, `ls`). Ten thousand messages are read in a few milliseconds
    /// less that way: their trigger data were most of what was made.
    public init(json bytes: [UInt8], only: Set<String>? = nil, triggers: Bool = true) throws(ReadError) {
        let selection = Selection(only: only, triggers: triggers)
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(JSONReadError) in
                try JSONReader.read(buffer, name: "readiness index") { json throws(JSONReadError) in try Self.document(&json, selection) }
            }
        }
        let read: ReadinessIndex?
        switch result {
        case .success(let index): read = index
        case .failure(let error): throw ReadError(description: "\(error.path.map { "\($0): " } ?? "")\(error.message(line: true))")
        }
        guard let read else { throw ReadError(description: "it is not a readiness index of format 1") }
        self = read
    }

    /// What of each message is kept.
    private struct Selection {
        var only: Set<String>?
        var triggers: Bool
    }

    private static func document(_ json: inout JSONReader, _ selection: Selection) throws(JSONReadError) -> ReadinessIndex? {
        guard try json.expectObject() else { return nil }
        var version, computedBy, cacheDirectory: String?
        var computedAt: Double?
        var manifest: IndexedManifest??
        var messages: [Message]?
        // By name: computed_at and computed_by share the fingerprint a JSONKeyTable
        // tells keys apart by, and this object is read once.
        try json.object { json, key throws(JSONReadError) in
            switch key.string {
            case "version": version = try json.requiredString()
            case "computed_at": computedAt = try json.optionalNumber()
            case "computed_by": computedBy = try json.requiredString()
            case "cache_dir": cacheDirectory = try json.requiredString()
            case "manifest": manifest = .some(try json.optionalObject() ? try indexedManifest(&json) : nil)
            case "messages": messages = try json.requiredArray { json throws(JSONReadError) in try message(&json, selection) }
            default: try json.skip()
            }
        }
        guard let version, version.hasPrefix("1."), let computedAt, let computedBy, let cacheDirectory,
              let manifest, let messages else { return nil }
        return ReadinessIndex(
            computedAt: computedAt, computedBy: computedBy, cacheDirectory: cacheDirectory, manifest: manifest, messages: messages)
    }

    private static func indexedManifest(_ json: inout JSONReader) throws(JSONReadError) -> IndexedManifest? {
        var url, path, sha256, source: String?
        var signed: Bool?
        var fetchedAt: Double?
        try json.object(ManifestKey.self) { json, key throws(JSONReadError) in
            switch key {
            case .url?: url = try json.optionalString()
            case .path?: path = try json.optionalString()
            case .sha256?: sha256 = try json.requiredString()
            case .signed?: signed = try json.optionalBool()
            case .source?: source = try json.requiredString()
            case .fetchedAt?: fetchedAt = try json.optionalNumber()
            case nil: try json.skip()
            }
        }
        guard let sha256, let signed, let source = source.flatMap(IndexedManifest.Source.init(rawValue:)) else {
            json.missing("sha256, signed and source")
            return nil
        }
        return IndexedManifest(url: url, path: path, sha256: sha256, signed: signed, source: source, fetchedAt: fetchedAt)
    }

    /// nil for a message left out by `selection` too (its id is known and not wanted).
    private static func message(_ json: inout JSONReader, _ selection: Selection) throws(JSONReadError) -> Message? {
        guard try json.expectObject() else { return nil }
        var id, status, reason, detail: String?
        var priority, decidedAt: Double?
        var triggers: [TriggerCondition]?
        var assets: [Asset]?
        var unwanted = false
        try json.object(MessageKey.self) { json, key throws(JSONReadError) in
            if unwanted { return try json.skip() }
            switch key {
            case .id?:
                id = try json.requiredString()
                if let only = selection.only, let id, !only.contains(id) { unwanted = true }
            case .status?: status = try json.requiredString()
            case .reason?: reason = try json.optionalString()
            case .detail?: detail = try json.optionalString()
            case .priority?: priority = try json.optionalNumber()
            case .decidedAt?: decidedAt = try json.optionalNumber()
            case .triggers? where !selection.triggers:
                guard try json.next() == .array else { return try json.mismatch("an array") }
                try json.skip()
                triggers = []
            case .triggers?: triggers = try json.requiredArray { json throws(JSONReadError) in try ManifestReader.condition(&json) }
            case .assets?: assets = try json.requiredArray { json throws(JSONReadError) in try asset(&json) }
            case nil: try json.skip()
            }
        }
        if unwanted { return nil }
        guard let id, let status = status.flatMap(MessageStatus.init(rawValue:)), let priority, let triggers, let assets else {
            json.missing("id, status, priority, triggers and assets")
            return nil
        }
        return Message(
            id: id, status: status, reason: reason, detail: detail, priority: priority, triggers: triggers, assets: assets,
            decidedAt: decidedAt)
    }

    private static func asset(_ json: inout JSONReader) throws(JSONReadError) -> Asset? {
        guard try json.expectObject() else { return nil }
        var url, kind, path, entry, object, lease: String?
        try json.object(AssetKey.self) { json, key throws(JSONReadError) in
            switch key {
            case .url?: url = try json.requiredString()
            case .kind?: kind = try json.requiredString()
            case .path?: path = try json.optionalString()
            case .entry?: entry = try json.optionalString()
            case .object?: object = try json.optionalString()
            case .lease?: lease = try json.optionalString()
            case nil: try json.skip()
            }
        }
        guard let url, let kind = kind.flatMap(AssetKind.init(rawValue:)) else {
            json.missing("url and kind")
            return nil
        }
        return Asset(url: url, kind: kind, path: path, entry: entry, object: object, lease: lease)
    }
}

// The keys of the index's objects, as they are spelled in it.

private enum ManifestKey: String, JSONObjectKey {
    case url, path, sha256, signed, source
    case fetchedAt = "fetched_at"
    static let table = JSONKeyTable(Self.self)
}

private enum MessageKey: String, JSONObjectKey {
    case id, status, reason, detail, priority, triggers, assets
    case decidedAt = "decided_at"
    static let table = JSONKeyTable(Self.self)
}

private enum AssetKey: String, JSONObjectKey {
    case url, kind, path, entry, object, lease
    static let table = JSONKeyTable(Self.self)
}
