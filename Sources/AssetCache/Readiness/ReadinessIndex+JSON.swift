/// The index as JSON (docs/schemas/readiness.schema.json), keys in the
/// documented order: the file, one line per message, and the messages alone for
/// `prefetch ready --json`.
extension ReadinessIndex {
    /// The file's text, a line per top-level key and per message, in pieces of
    /// about 64 KiB: a run writes the index while it still holds its records,
    /// and 10,000 messages are 5 MB of text.
    package func write(_ flush: @escaping ([UInt8]) -> Void) {
        var writer = PrettyJSON(flush: flush, lineDepth: 2)
        writer.object { json in
            json.key("version"); json.string(Self.formatVersion)
            json.key("computed_at"); json.number(computedAt)
            json.key("computed_by"); json.string(computedBy)
            json.key("cache_dir"); json.string(cacheDirectory)
            json.key("manifest")
            if let manifest { manifest.write(to: &json) } else { json.null() }
            json.key("messages")
            json.array(messages) { json, message in message.write(to: &json) }
        }
        writer.flushNow()
        flush([0x0A])
    }
}

extension IndexedManifest {
    func write(to json: inout PrettyJSON) {
        json.object { json in
            if let url { json.key("url"); json.string(url) }
            if let path { json.key("path"); json.string(path) }
            json.key("sha256"); json.string(sha256)
            json.key("signed"); json.bool(signed)
            json.key("source"); json.string(source.rawValue)
            if let fetchedAt { json.key("fetched_at"); json.number(fetchedAt) }
        }
    }
}

extension ReadinessIndex.Message {
    package func write(to json: inout PrettyJSON) {
        json.object { json in
            json.key("id"); json.string(id)
            json.key("status"); json.string(status.rawValue)
            if let reason { json.key("reason"); json.string(reason) }
            if let detail { json.key("detail"); json.string(detail) }
            json.key("priority"); json.number(priority)
            if let decidedAt { json.key("decided_at"); json.number(decidedAt) }
            json.key("triggers")
            json.array(triggers) { json, trigger in
                json.object { json in
                    json.key("type"); json.string(trigger.type)
                    json.key("data"); JSONValue.object(trigger.data).write(to: &json)
                }
            }
            json.key("assets")
            json.array(assets) { json, asset in
                json.object { json in
                    json.key("url"); json.string(asset.url)
                    json.key("kind"); json.string(asset.kind.rawValue)
                    if let path = asset.path { json.key("path"); json.string(path) }
                    if let entry = asset.entry { json.key("entry"); json.string(entry) }
                    if let object = asset.object { json.key("object"); json.string(object) }
                    if let lease = asset.lease { json.key("lease"); json.string(lease) }
                }
            }
        }
    }
}

extension JSONValue {
    /// Members in key order: the same value is always the same text.
    func write(to json: inout PrettyJSON) {
        switch self {
        case .null: json.null()
        case .bool(let flag): json.bool(flag)
        case .number(let number): json.number(number)
        case .string(let text): json.string(text)
        case .array(let elements): json.array(elements) { json, element in element.write(to: &json) }
        case .object(let members):
            json.object { json in
                for key in members.keys.sorted() {
                    json.key(text: key)
                    members[key]!.write(to: &json)
                }
            }
        }
    }
}
