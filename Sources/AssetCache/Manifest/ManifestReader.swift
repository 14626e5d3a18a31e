/// Reads a manifest's bytes in ``JSONReader``'s one pass, handing each trigger
/// over as it is read: known keys are matched on their bytes (the enums at the
/// end) and read as their type, everything else is checked and skipped. What a
/// value of the wrong type gives is what Swift's `Decodable` gave for the same
/// document before (`expected a string`, `is required`), at the same JSON path.
enum ManifestReader {
    /// Calls `each` with every trigger and its index in `triggers`, and returns
    /// the document's other keys (`integrity`, the signed freshness fields). What
    /// `each` is given after a mismatch does not matter: the mismatch is thrown
    /// at the end.
    static func read(
        _ bytes: UnsafeRawBufferPointer, each: (consuming RawTrigger, Int) -> Void
    ) throws(JSONReadError) -> RawManifestFields {
        try JSONReader.read(bytes, name: "manifest") { json throws(JSONReadError) in try manifest(&json, each) }
    }

    private static func manifest(
        _ json: inout JSONReader, _ each: (consuming RawTrigger, Int) -> Void
    ) throws(JSONReadError) -> RawManifestFields {
        var hasTriggers = false
        var fields = RawManifestFields()
        guard try json.expectObject() else { return fields }
        try json.object(ManifestKey.self) { json, key throws(JSONReadError) in
            switch key {
            case .triggers?:
                hasTriggers = true
                guard try json.next() == .array else { return try json.mismatch("an array") }
                var index = 0
                try json.array { (json: inout JSONReader) throws(JSONReadError) in
                    if let raw = try trigger(&json) { each(raw, index) }
                    index += 1
                }
            case .integrity?: fields.integrity = try stringMap(&json)
            case .version?: fields.version = try json.optionalNumber()
            case .expires?: fields.expires = try json.optionalString()
            case .signedAt?: fields.signedAt = try json.optionalString()
            case .audience?: fields.audience = try json.optionalString()
            case nil: try json.skip()
            }
        }
        if !hasTriggers { json.missing("triggers") }
        return fields
    }

    /// Only `type` and `id` of an action that is not `inapp` are judged: other
    /// action types are skipped, so their bodies are not ours to refuse. The type
    /// may come last, so the body's first mismatch waits for it.
    private static func trigger(_ json: inout JSONReader) throws(JSONReadError) -> RawTrigger? {
        guard try json.expectObject() else { return nil }
        // Mismatches are rare: the bookkeeping below only runs when there is one
        // (asking the optionals themselves copied them, three times a trigger).
        var mismatched = json.mismatched
        let before = json.takeMismatch()
        var identity: JSONReadError?
        var body: JSONReadError?
        var raw = RawTrigger()
        try json.object(TriggerKey.self) { json, key, written throws(JSONReadError) in
            switch key {
            case .type?: raw.type = try json.optionalString()
            case .id?: raw.id = try json.optionalString()
            case .priority?: raw.priority = try json.optionalNumber()
            case .startTime?: raw.startTime = try json.optionalNumber()
            case .endTime?: raw.endTime = try json.optionalNumber()
            case .delay?: raw.delay = try json.optionalNumber()
            case .timeout?: raw.timeout = try json.optionalNumber()
            case .minSecondsSinceLastTrigger?: raw.minSecondsSinceLastTrigger = try json.optionalNumber()
            case .prefetch?: raw.prefetch = try json.optionalBool()
            case .triggerCondition?: raw.triggerCondition = try json.optionalArray { json throws(JSONReadError) in try condition(&json) }
            case .data?: raw.data = try messageData(&json)
            case nil:
                raw.unknownKeys.append(written.string)
                try json.skip()
            }
            guard json.mismatched else { return }
            mismatched = true
            if key == .type || key == .id {
                if identity == nil { identity = json.takeMismatch() }
            } else {
                if body == nil { body = json.takeMismatch() }
            }
        }
        let inapp = raw.type == "inapp"
        if mismatched {
            json.mismatch = before ?? identity ?? (inapp ? body : nil)
        }
        guard inapp else { return RawTrigger(id: raw.id, type: raw.type) }
        // Swapped out: the closure above shares `raw`, and returning it copied every field.
        var read = RawTrigger()
        swap(&read, &raw)
        return read
    }

    /// `data` null or absent is an empty object. The readiness index keeps conditions in this shape too.
    static func condition(_ json: inout JSONReader) throws(JSONReadError) -> TriggerCondition? {
        guard try json.expectObject() else { return nil }
        var type: String?
        var data: [String: JSONValue]?
        try json.object(ConditionKey.self) { json, key throws(JSONReadError) in
            switch key {
            case .type?: type = try json.requiredString()
            case .data?: data = try json.optionalMembers()
            case nil: try json.skip()
            }
        }
        guard let type else {
            json.missing("type")
            return nil
        }
        return TriggerCondition(type: type, data: data ?? [:])
    }

    private static func messageData(_ json: inout JSONReader) throws(JSONReadError) -> RawMessageData? {
        guard try json.optionalObject() else { return nil }
        var data = RawMessageData()
        try json.object(MessageDataKey.self) { json, key, written throws(JSONReadError) in
            switch key {
            case .type?: data.type = try json.optionalString()
            case .imageStyle?: data.imageStyle = try json.optionalString()
            case .message?: data.message = try json.optionalString()
            case .orientation?: data.orientation = try json.optionalString()
            case .imageURL?: data.imageURL = try json.optionalString()
            case .zippedAssetsURL?: data.zippedAssetsURL = try json.optionalString()
            case .assetURLs?: data.assetURLs = try json.optionalArray { json throws(JSONReadError) in try json.requiredString() }
            case .isControl?: data.isControl = try json.optionalBool()
            case .extras?: data.extras = try json.optionalMembers()
            case nil:
                data.unknownKeys.append(written.string)
                try json.skip()
            }
        }
        return data
    }

    /// `integrity`: URL → digest, both strings.
    private static func stringMap(_ json: inout JSONReader) throws(JSONReadError) -> [String: String]? {
        guard try json.optionalObject() else { return nil }
        var map: [String: String] = [:]
        try json.object { json, key throws(JSONReadError) in
            if let value = try json.requiredString() { map[key.string] = value }
        }
        return map
    }
}

/// The document's keys besides `triggers`, as read; the builder checks them.
struct RawManifestFields {
    var integrity: [String: String]?
    var version: Double?
    var expires: String?
    var signedAt: String?
    var audience: String?
}

// The keys of the manifest's objects, as they are spelled in it.

private enum ManifestKey: String, JSONObjectKey {
    case triggers, integrity, version, expires, audience
    case signedAt = "signed_at"
    static let table = JSONKeyTable(Self.self)
}

enum TriggerKey: String, JSONObjectKey {
    case type, id, priority, delay, timeout, prefetch, data
    case startTime = "start_time", endTime = "end_time"
    case minSecondsSinceLastTrigger = "min_seconds_since_last_trigger"
    case triggerCondition = "trigger_condition"
    static let table = JSONKeyTable(Self.self)
}

private enum ConditionKey: String, JSONObjectKey {
    case type, data
    static let table = JSONKeyTable(Self.self)
}

enum MessageDataKey: String, JSONObjectKey {
    case type, message, orientation, extras
    case imageStyle = "image_style", imageURL = "image_url", zippedAssetsURL = "zipped_assets_url"
    case assetURLs = "asset_urls", isControl = "is_control"
    static let table = JSONKeyTable(Self.self)
}
