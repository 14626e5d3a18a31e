/// The manifest exactly as JSON, before any checking: Codable reports wrong types
/// with their coding path, which ``ManifestError`` turns into `triggers[3].data.x`.
struct RawManifest: Decodable, Equatable {
    var triggers: [RawTrigger]
    var integrity: [String: String]?
}

struct RawTrigger: Decodable, Equatable {
    var id: String?
    var type: String?
    var priority: Double?
    var startTime: Double?
    var endTime: Double?
    var delay: Double?
    var timeout: Double?
    var minSecondsSinceLastTrigger: Double?
    var prefetch: Bool?
    var triggerCondition: [RawCondition]?
    var data: RawMessageData?

    enum CodingKeys: String, CodingKey {
        case id, type, priority, delay, timeout, prefetch, data
        case startTime = "start_time", endTime = "end_time"
        case minSecondsSinceLastTrigger = "min_seconds_since_last_trigger"
        case triggerCondition = "trigger_condition"
    }

    init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try container.decodeIfPresent(String.self, forKey: .type)
        id = try container.decodeIfPresent(String.self, forKey: .id)
        // Other action types are skipped, so their bodies are not ours to judge.
        guard type == "inapp" else { return }
        priority = try container.decodeIfPresent(Double.self, forKey: .priority)
        startTime = try container.decodeIfPresent(Double.self, forKey: .startTime)
        endTime = try container.decodeIfPresent(Double.self, forKey: .endTime)
        delay = try container.decodeIfPresent(Double.self, forKey: .delay)
        timeout = try container.decodeIfPresent(Double.self, forKey: .timeout)
        minSecondsSinceLastTrigger = try container.decodeIfPresent(Double.self, forKey: .minSecondsSinceLastTrigger)
        prefetch = try container.decodeIfPresent(Bool.self, forKey: .prefetch)
        triggerCondition = try container.decodeIfPresent([RawCondition].self, forKey: .triggerCondition)
        data = try container.decodeIfPresent(RawMessageData.self, forKey: .data)
    }
}

struct RawCondition: Decodable, Equatable {
    var type: String
    var data: [String: JSONValue]?
}

struct RawMessageData: Decodable, Equatable {
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
}
