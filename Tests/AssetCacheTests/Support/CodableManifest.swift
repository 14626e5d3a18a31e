import Foundation
@testable import AssetCache

/// What a manifest holds before it is checked, as the tests compare it.
struct RawManifest: Equatable {
    var triggers: [RawTrigger]
    var integrity: [String: String]?
}

/// What Swift's `Decodable` and Foundation's `JSONDecoder` make of a manifest:
/// the oracle ``ManifestReader`` is held to on valid JSON. The reader replaced
/// this path; its rules (only `type` and `id` of a non-`inapp` action are read,
/// null is nil) are kept here exactly as they were.
struct CodableManifest: Decodable {
    var triggers: [Trigger]
    var integrity: [String: String]?

    struct Trigger: Decodable {
        var raw = RawTrigger()

        enum CodingKeys: String, CodingKey {
            case id, type, priority, delay, timeout, prefetch, data
            case startTime = "start_time", endTime = "end_time"
            case minSecondsSinceLastTrigger = "min_seconds_since_last_trigger"
            case triggerCondition = "trigger_condition"
        }

        init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            raw.type = try container.decodeIfPresent(String.self, forKey: .type)
            raw.id = try container.decodeIfPresent(String.self, forKey: .id)
            guard raw.type == "inapp" else { return }
            raw.priority = try container.decodeIfPresent(Double.self, forKey: .priority)
            raw.startTime = try container.decodeIfPresent(Double.self, forKey: .startTime)
            raw.endTime = try container.decodeIfPresent(Double.self, forKey: .endTime)
            raw.delay = try container.decodeIfPresent(Double.self, forKey: .delay)
            raw.timeout = try container.decodeIfPresent(Double.self, forKey: .timeout)
            raw.minSecondsSinceLastTrigger = try container.decodeIfPresent(Double.self, forKey: .minSecondsSinceLastTrigger)
            raw.prefetch = try container.decodeIfPresent(Bool.self, forKey: .prefetch)
            raw.triggerCondition = try container.decodeIfPresent([Condition].self, forKey: .triggerCondition)?.map(\.raw)
            raw.data = try container.decodeIfPresent(MessageData.self, forKey: .data)?.raw
        }
    }

    struct Condition: Decodable {
        var type: String
        var data: [String: JSONValue]?
        var raw: TriggerCondition { TriggerCondition(type: type, data: data ?? [:]) }
    }

    struct MessageData: Decodable {
        var type: String?
        var imageStyle: String?
        var message: String?
        var orientation: String?
        var imageURL: String?
        var zippedAssetsURL: String?
        var assetURLs: [String]?
        var isControl: Bool?
        var extras: [String: JSONValue]?

        enum CodingKeys: String, CodingKey {
            case type, message, orientation, extras
            case imageStyle = "image_style"
            case imageURL = "image_url"
            case zippedAssetsURL = "zipped_assets_url"
            case assetURLs = "asset_urls"
            case isControl = "is_control"
        }

        var raw: RawMessageData {
            RawMessageData(
                type: type, imageStyle: imageStyle, message: message, orientation: orientation, imageURL: imageURL,
                zippedAssetsURL: zippedAssetsURL, assetURLs: assetURLs, isControl: isControl, extras: extras)
        }
    }

    static func read(_ json: String) -> RawManifest? {
        guard let decoded = try? JSONDecoder().decode(CodableManifest.self, from: Data(json.utf8)) else { return nil }
        return RawManifest(triggers: decoded.triggers.map(\.raw), integrity: decoded.integrity)
    }
}

extension RawManifest {
    /// What Codable can compare: the keys no field takes, which the reader keeps
    /// for its warnings (ManifestKeyCheck), are not read by `Decodable`.
    var withoutUnknownKeys: RawManifest {
        var copy = self
        for index in copy.triggers.indices {
            copy.triggers[index].unknownKeys = []
            copy.triggers[index].data?.unknownKeys = []
        }
        return copy
    }
}
