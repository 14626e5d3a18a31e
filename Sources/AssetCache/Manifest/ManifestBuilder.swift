#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Turns each trigger into the model as it is read, checking what the shapes
/// alone cannot. Its first error waits until the whole text has been read, so
/// that a syntax or type error anywhere is reported first.
struct ManifestBuilder: Sendable {
    var actions: [TriggeredAction] = []
    var failure: ManifestError?
    var seenIDs: [String: Int] = [:]
    var warnings: [ManifestWarning] = []
    var keyCheck = ManifestKeyCheck()
    /// Large manifests name the same few URLs many times: each is parsed once.
    var parsedURLs: [String: AssetURL] = [:]

    /// The smallest action a manifest can hold, `{"id":"a","type":"inapp","data":{}},`,
    /// is 37 bytes, so there are at most `bytes / 37`: room for that many is made
    /// once, instead of copying every action each time the array doubles. Room
    /// left unused is address space only, as the array fills from the front: its
    /// pages are never touched. (Not so for `seenIDs`, which a hash fills all over.)
    init(bytes: Int) {
        actions.reserveCapacity(bytes / 37)
    }

    mutating func add(_ trigger: consuming RawTrigger, index: Int) {
        guard failure == nil else { return }
        guard let type = trigger.type, type == "inapp" else {
            warnings.append(ManifestWarning(.skippedAction, path: "triggers[\(index)]", "skipped action of type '\(trigger.type ?? "none")'"))
            return
        }
        var trigger = trigger
        do {
            actions.append(try action(&trigger, index: index))
        } catch {
            failure = error
        }
    }

    mutating func finish(_ fields: RawManifestFields) throws(ManifestError) -> Manifest {
        if let failure { throw failure }
        var integrity: [AssetURL: [UInt8]] = [:]
        for (url, value) in fields.integrity ?? [:] {
            let path = JSONPath.appending(key: url, to: "integrity")
            integrity[try assetURL(url, path: path)] = try digest(value, path: path)
        }
        if !integrity.isEmpty {
            for index in actions.indices {
                for (url, _) in actions[index].message.assets {
                    if let pin = integrity[url] { actions[index].integrity[url] = pin }
                }
            }
        }
        return Manifest(actions: actions, integrity: integrity, warnings: warnings, freshness: try freshness(fields))
    }

    /// Paths are spelled only for an error: building one per field was most of
    /// the time here on large manifests. Values are taken out of `raw`, not
    /// copied: it is thrown away after.
    mutating func action(_ raw: inout RawTrigger, index: Int) throws(ManifestError) -> TriggeredAction {
        func path(_ key: String) -> String { "triggers[\(index)].\(key)" }
        guard let id = raw.id.take(), !id.isEmpty else { throw ManifestError(path: path("id"), "every action needs a non-empty id") }
        if let first = seenIDs.updateValue(index, forKey: id) {
            throw ManifestError(path: path("id"), "duplicate id '\(id)' (also at triggers[\(first)])")
        }
        guard var data = raw.data.take() else { throw ManifestError(path: path("data"), "an inapp action needs a message in 'data'") }
        if !raw.unknownKeys.isEmpty { keyCheck.action(raw.unknownKeys, path: "triggers[\(index)]", into: &warnings) }

        let delay = try seconds(raw.delay, path: path("delay")) ?? 0
        return TriggeredAction(
            id: id,
            priority: try finite(raw.priority, path: path("priority")) ?? 0,
            startTime: try epoch(raw.startTime, path: path("start_time")),
            endTime: try epoch(raw.endTime, path: path("end_time")),
            delay: delay,
            timeout: try seconds(raw.timeout, path: path("timeout")) ?? delay + 30,
            minSecondsSinceLastTrigger: try epoch(raw.minSecondsSinceLastTrigger, path: path("min_seconds_since_last_trigger")),
            prefetch: raw.prefetch ?? true,
            conditions: raw.triggerCondition.take() ?? [],
            message: try message(&data, path: path("data")),
            manifestIndex: index
        )
    }

    mutating func message(_ raw: inout RawMessageData, path data: @autoclosure () -> String) throws(ManifestError) -> InAppMessage {
        func path(_ key: String) -> String { "\(data()).\(key)" }
        var urls: [AssetURL] = []
        if let assetURLs = raw.assetURLs.take() {
            urls.reserveCapacity(assetURLs.count)
            for (index, url) in assetURLs.enumerated() {
                urls.append(try assetURL(url, path: path("asset_urls[\(index)]")))
            }
        }
        let type = MessageType(raw.type.take() ?? "SLIDEUP")
        keyCheck.message(raw, type: type, path: data, into: &warnings)
        return InAppMessage(
            type: type,
            imageStyle: try enumValue(raw.imageStyle.take(), default: .top, path: path("image_style")),
            orientation: try enumValue(raw.orientation.take(), default: .any, path: path("orientation")),
            text: raw.message.take(),
            isControl: raw.isControl ?? false,
            imageURL: try optionalURL(raw.imageURL.take(), path: path("image_url")),
            zippedAssetsURL: try optionalURL(raw.zippedAssetsURL.take(), path: path("zipped_assets_url")),
            assetURLs: urls,
            extras: raw.extras.take() ?? [:]
        )
    }

    mutating func optionalURL(_ raw: String?, path: @autoclosure () -> String) throws(ManifestError) -> AssetURL? {
        guard let raw, !raw.isEmpty else { return nil }
        return try assetURL(raw, path: path())
    }

    mutating func assetURL(_ raw: String, path: @autoclosure () -> String) throws(ManifestError) -> AssetURL {
        if let parsed = parsedURLs[raw] { return parsed }
        do throws(AssetURL.ParseError) {
            let parsed = try AssetURL(parsing: raw)
            parsedURLs[raw] = parsed
            return parsed
        } catch {
            switch error {
            case .unsupportedScheme(let scheme):
                throw ManifestError(path: path(), "'\(raw)' uses scheme '\(scheme)'; only http and https are allowed")
            case .malformed(let why):
                throw ManifestError(path: path(), "'\(raw)' is not a valid URL: it \(why)")
            }
        }
    }

    func digest(_ value: String, path: @autoclosure () -> String) throws(ManifestError) -> [UInt8] {
        guard value.hasPrefix("sha256-") else {
            let algorithm = value.split(separator: "-").first.map(String.init) ?? value
            throw ManifestError(path: path(), "unsupported integrity algorithm '\(algorithm)'; only sha256-<base64> is accepted")
        }
        guard let bytes = Data(base64Encoded: String(value.dropFirst("sha256-".count))), bytes.count == 32 else {
            throw ManifestError(path: path(), "'\(value)' is not a base64 SHA-256 digest")
        }
        return Array(bytes)
    }

    func enumValue<T: RawRepresentable<String>>(_ raw: String?, default value: T, path: @autoclosure () -> String) throws(ManifestError) -> T {
        guard let raw else { return value }
        guard let parsed = T(rawValue: raw) ?? T(rawValue: raw.uppercased()) else {
            throw ManifestError(path: path(), "unknown value '\(raw)'")
        }
        return parsed
    }

    func finite(_ value: Double?, path: @autoclosure () -> String) throws(ManifestError) -> Double? {
        guard let value else { return nil }
        guard value.isFinite, abs(value) < 1e15 else { throw ManifestError(path: path(), "\(value) is out of range") }
        return value
    }

    /// Times and intervals are whole seconds in the seed format; a fraction is a
    /// value meant for another field, or a unit mistake (milliseconds as 0.001 s).
    func wholeSeconds(_ value: Double?, path: @autoclosure () -> String) throws(ManifestError) -> Double? {
        guard let value = try finite(value, path: path()) else { return nil }
        guard value == value.rounded(.towardZero) else {
            throw ManifestError(path: path(), "\(value) is not a whole number of seconds")
        }
        return value
    }

    /// `-1` means "open" for times and "use the global value" for intervals.
    func epoch(_ value: Double?, path: @autoclosure () -> String) throws(ManifestError) -> Double? {
        guard let value = try wholeSeconds(value, path: path()), value != -1 else { return nil }
        guard value >= 0 else { throw ManifestError(path: path(), "\(value) is negative; use -1 for none") }
        return value
    }

    func seconds(_ value: Double?, path: @autoclosure () -> String) throws(ManifestError) -> Double? {
        guard let value = try wholeSeconds(value, path: path()) else { return nil }
        guard value >= 0 else { throw ManifestError(path: path(), "\(value) is negative") }
        return value
    }
}
