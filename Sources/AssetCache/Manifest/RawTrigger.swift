/// One trigger as ``ManifestReader`` read it, shapes checked and nothing else:
/// ``Manifest/decode(_:)`` then checks what the values mean.
struct RawTrigger: Equatable, Sendable {
    var id: String?
    var type: String?
    var priority: Double?
    var startTime: Double?
    var endTime: Double?
    var delay: Double?
    var timeout: Double?
    var minSecondsSinceLastTrigger: Double?
    var prefetch: Bool?
    /// Already the model's: a condition has nothing left to check.
    var triggerCondition: [TriggerCondition]?
    var data: RawMessageData?
    /// Keys not among the above, as written: a near miss of one is a warning.
    var unknownKeys: [String] = []
}

struct RawMessageData: Equatable, Sendable {
    var type: String?
    var imageStyle: String?
    var message: String?
    var orientation: String?
    var imageURL: String?
    var zippedAssetsURL: String?
    var assetURLs: [String]?
    var isControl: Bool?
    var extras: [String: JSONValue]?
    /// Keys not among the above, as written: ManifestKeyCheck judges them.
    var unknownKeys: [String] = []
}
