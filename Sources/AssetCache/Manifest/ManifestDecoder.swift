#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Manifest {
    /// Manifests are small documents; anything larger is refused unread.
    public static let maxSize = 8 * 1024 * 1024

    /// Decodes and checks a manifest. Unknown keys are ignored; wrong types, missing
    /// or duplicate ids and non-http(s) URLs throw a ``ManifestError`` naming the path.
    public static func decode(_ data: Data) throws(ManifestError) -> Manifest {
        guard data.count <= maxSize else {
            throw ManifestError(path: "", "the manifest is \(data.count) bytes; the limit is \(maxSize)")
        }
        try JSONPreflight.check(data)
        let raw: RawManifest
        do {
            raw = try FastManifestReader.read(data) ?? JSONDecoder().decode(RawManifest.self, from: data)
        } catch let error as DecodingError {
            throw ManifestError(decodingError: error)
        } catch {
            throw ManifestError(path: "", "\(error)")
        }
        var builder = ManifestBuilder()
        return try builder.build(raw)
    }
}

/// Turns the raw document into the model, checking what Codable cannot.
private struct ManifestBuilder {
    var seenIDs: [String: Int] = [:]
    var warnings: [String] = []
    /// Large manifests name the same few URLs many times: each is parsed once.
    var parsedURLs: [String: AssetURL] = [:]

    mutating func build(_ raw: RawManifest) throws(ManifestError) -> Manifest {
        var actions: [TriggeredAction] = []
        for (index, trigger) in raw.triggers.enumerated() {
            let path = "triggers[\(index)]"
            guard let type = trigger.type, type == "inapp" else {
                warnings.append("\(path): skipped action of type '\(trigger.type ?? "none")'")
                continue
            }
            actions.append(try action(trigger, index: index))
        }
        var integrity: [AssetURL: [UInt8]] = [:]
        for (url, value) in raw.integrity ?? [:] {
            let path = "integrity[\"\(url)\"]"
            integrity[try assetURL(url, path: path)] = try digest(value, path: path)
        }
        if !integrity.isEmpty {
            for index in actions.indices {
                for (url, _) in actions[index].message.assets {
                    if let pin = integrity[url] { actions[index].integrity[url] = pin }
                }
            }
        }
        return Manifest(actions: actions, integrity: integrity, warnings: warnings)
    }

    mutating func action(_ raw: RawTrigger, index: Int) throws(ManifestError) -> TriggeredAction {
        let path = "triggers[\(index)]"
        guard let id = raw.id, !id.isEmpty else { throw ManifestError(path: "\(path).id", "every action needs a non-empty id") }
        if let first = seenIDs[id] {
            throw ManifestError(path: "\(path).id", "duplicate id '\(id)' (also at triggers[\(first)])")
        }
        seenIDs[id] = index
        guard let data = raw.data else { throw ManifestError(path: "\(path).data", "an inapp action needs a message in 'data'") }

        let delay = try seconds(raw.delay, path: "\(path).delay") ?? 0
        let conditions = (raw.triggerCondition ?? []).map {
            TriggerCondition(type: $0.type, data: $0.data ?? [:])
        }
        return TriggeredAction(
            id: id,
            priority: try finite(raw.priority, path: "\(path).priority") ?? 0,
            startTime: try epoch(raw.startTime, path: "\(path).start_time"),
            endTime: try epoch(raw.endTime, path: "\(path).end_time"),
            delay: delay,
            timeout: try seconds(raw.timeout, path: "\(path).timeout") ?? delay + 30,
            minSecondsSinceLastTrigger: try epoch(raw.minSecondsSinceLastTrigger, path: "\(path).min_seconds_since_last_trigger"),
            prefetch: raw.prefetch ?? true,
            conditions: conditions,
            message: try message(data, path: "\(path).data"),
            manifestIndex: index
        )
    }

    mutating func message(_ raw: RawMessageData, path: String) throws(ManifestError) -> InAppMessage {
        var urls: [AssetURL] = []
        for (index, url) in (raw.assetURLs ?? []).enumerated() {
            urls.append(try assetURL(url, path: "\(path).asset_urls[\(index)]"))
        }
        return InAppMessage(
            type: MessageType(raw.type ?? "SLIDEUP"),
            imageStyle: try enumValue(raw.imageStyle, default: .top, path: "\(path).image_style"),
            orientation: try enumValue(raw.orientation, default: .any, path: "\(path).orientation"),
            text: raw.message,
            isControl: raw.isControl ?? false,
            imageURL: try optionalURL(raw.imageURL, path: "\(path).image_url"),
            zippedAssetsURL: try optionalURL(raw.zippedAssetsURL, path: "\(path).zipped_assets_url"),
            assetURLs: urls,
            extras: raw.extras ?? [:]
        )
    }

    mutating func optionalURL(_ raw: String?, path: String) throws(ManifestError) -> AssetURL? {
        guard let raw, !raw.isEmpty else { return nil }
        return try assetURL(raw, path: path)
    }

    mutating func assetURL(_ raw: String, path: String) throws(ManifestError) -> AssetURL {
        if let parsed = parsedURLs[raw] { return parsed }
        do throws(AssetURL.ParseError) {
            let parsed = try AssetURL(parsing: raw)
            parsedURLs[raw] = parsed
            return parsed
        } catch {
            switch error {
            case .unsupportedScheme(let scheme):
                throw ManifestError(path: path, "'\(raw)' uses scheme '\(scheme)'; only http and https are allowed")
            case .malformed(let why):
                throw ManifestError(path: path, "'\(raw)' is not a valid URL: it \(why)")
            }
        }
    }

    func digest(_ value: String, path: String) throws(ManifestError) -> [UInt8] {
        guard value.hasPrefix("sha256-") else {
            let algorithm = value.split(separator: "-").first.map(String.init) ?? value
            throw ManifestError(path: path, "unsupported integrity algorithm '\(algorithm)'; only sha256-<base64> is accepted")
        }
        guard let bytes = Data(base64Encoded: String(value.dropFirst("sha256-".count))), bytes.count == 32 else {
            throw ManifestError(path: path, "'\(value)' is not a base64 SHA-256 digest")
        }
        return Array(bytes)
    }

    func enumValue<T: RawRepresentable<String>>(_ raw: String?, default value: T, path: String) throws(ManifestError) -> T {
        guard let raw else { return value }
        guard let parsed = T(rawValue: raw.uppercased()) else {
            throw ManifestError(path: path, "unknown value '\(raw)'")
        }
        return parsed
    }

    func finite(_ value: Double?, path: String) throws(ManifestError) -> Double? {
        guard let value else { return nil }
        guard value.isFinite, abs(value) < 1e15 else { throw ManifestError(path: path, "\(value) is out of range") }
        return value
    }

    /// Times and intervals are whole seconds in the seed format; a fraction is a
    /// value meant for another field, or a unit mistake (milliseconds as 0.001 s).
    func wholeSeconds(_ value: Double?, path: String) throws(ManifestError) -> Double? {
        guard let value = try finite(value, path: path) else { return nil }
        guard value == value.rounded(.towardZero) else {
            throw ManifestError(path: path, "\(value) is not a whole number of seconds")
        }
        return value
    }

    /// `-1` means "open" for times and "use the global value" for intervals.
    func epoch(_ value: Double?, path: String) throws(ManifestError) -> Double? {
        guard let value = try wholeSeconds(value, path: path), value != -1 else { return nil }
        guard value >= 0 else { throw ManifestError(path: path, "\(value) is negative; use -1 for none") }
        return value
    }

    func seconds(_ value: Double?, path: String) throws(ManifestError) -> Double? {
        guard let value = try wholeSeconds(value, path: path) else { return nil }
        guard value >= 0 else { throw ManifestError(path: path, "\(value) is negative") }
        return value
    }
}

extension ManifestError {
    init(decodingError error: DecodingError) {
        switch error {
        case .typeMismatch(let type, let context):
            self.init(path: Self.path(context.codingPath), "expected \(Self.describe(type))")
        case .valueNotFound(let type, let context):
            self.init(path: Self.path(context.codingPath), "expected \(Self.describe(type)), found null")
        case .keyNotFound(let key, let context):
            self.init(path: Self.path(context.codingPath + [key]), "is required")
        case .dataCorrupted(let context):
            self.init(path: Self.path(context.codingPath), "not valid JSON (\(context.debugDescription))")
        @unknown default:
            self.init(path: "", "\(error)")
        }
    }

    static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Double.Type, is Int.Type: "a number"
        case is Bool.Type: "true or false"
        case is [String: JSONValue].Type, is [String: String].Type: "an object"
        default: String(describing: type).hasPrefix("Array") ? "an array" : "an object"
        }
    }
}
