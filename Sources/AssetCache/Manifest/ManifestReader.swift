/// Reads a manifest's bytes into ``RawManifest`` in ``JSONReader``'s one pass:
/// known keys are matched on their bytes (the enums at the end) and read as
/// their type, everything else is checked and skipped. What a value of the wrong type gives is what
/// Swift's `Decodable` gave for the same document before (`expected a string`,
/// `is required`), at the same JSON path.
enum ManifestReader {
    static func read(_ bytes: UnsafeRawBufferPointer) throws(JSONReadError) -> RawManifest {
        try JSONReader.read(bytes, name: "manifest") { json throws(JSONReadError) in try manifest(&json) }
    }

    private static func manifest(_ json: inout JSONReader) throws(JSONReadError) -> RawManifest {
        var triggers: [RawTrigger]?
        var integrity: [String: String]?
        guard try json.expectObject() else { return RawManifest(triggers: []) }
        try json.object(ManifestKey.self) { json, key throws(JSONReadError) in
            switch key {
            case .triggers?: triggers = try json.requiredArray { json throws(JSONReadError) in try trigger(&json) }
            case .integrity?: integrity = try stringMap(&json)
            case nil: try json.skip()
            }
        }
        if triggers == nil { json.missing("triggers") }
        return RawManifest(triggers: triggers ?? [], integrity: integrity)
    }

    /// Only `type` and `id` of an action that is not `inapp` are judged: other
    /// action types are skipped, so their bodies are not ours to refuse. The type
    /// may come last, so the body's first mismatch waits for it.
    private static func trigger(_ json: inout JSONReader) throws(JSONReadError) -> RawTrigger? {
        guard try json.expectObject() else { return nil }
        let before = json.takeMismatch()
        var identity: JSONReadError?
        var body: JSONReadError?
        var raw = RawTrigger()
        try json.object(TriggerKey.self) { json, key throws(JSONReadError) in
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
            case nil: try json.skip()
            }
            if key == .type || key == .id {
                identity = identity ?? json.takeMismatch()
            } else {
                body = body ?? json.takeMismatch()
            }
        }
        let inapp = raw.type == "inapp"
        json.mismatch = before ?? identity ?? (inapp ? body : nil)
        return inapp ? raw : RawTrigger(id: raw.id, type: raw.type)
    }

    private static func condition(_ json: inout JSONReader) throws(JSONReadError) -> RawCondition? {
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
        return RawCondition(type: type, data: data)
    }

    private static func messageData(_ json: inout JSONReader) throws(JSONReadError) -> RawMessageData? {
        guard try json.optionalObject() else { return nil }
        var data = RawMessageData()
        try json.object(MessageDataKey.self) { json, key throws(JSONReadError) in
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
            case nil: try json.skip()
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

// The keys of the manifest's objects, as they are spelled in it.

private enum ManifestKey: String, JSONObjectKey {
    case triggers, integrity
    static let table = JSONKeyTable(Self.self)
}

private enum TriggerKey: String, JSONObjectKey {
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

private enum MessageDataKey: String, JSONObjectKey {
    case type, message, orientation, extras
    case imageStyle = "image_style", imageURL = "image_url", zippedAssetsURL = "zipped_assets_url"
    case assetURLs = "asset_urls", isControl = "is_control"
    static let table = JSONKeyTable(Self.self)
}
