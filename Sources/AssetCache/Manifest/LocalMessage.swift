/// Messages an app creates itself rather than receiving them in a manifest
/// (docs/delivery.md: they go on the delivery engine's stack like triggered ones).
/// The labels differ from the memberwise initialisers on purpose: those stay
/// internal, and a public one of the same name would redeclare them.
extension InAppMessage {
    public init(
        type: MessageType, message: String? = nil, imageStyle: ImageStyle = .top, orientation: Orientation = .any,
        imageURL: AssetURL? = nil, zippedAssetsURL: AssetURL? = nil, assetURLs: [AssetURL] = [],
        isControl: Bool = false, extras: [String: JSONValue] = [:]
    ) {
        self.init(
            type: type, imageStyle: imageStyle, orientation: orientation, text: message, isControl: isControl,
            imageURL: imageURL, zippedAssetsURL: zippedAssetsURL, assetURLs: assetURLs, extras: extras)
    }
}

extension TriggeredAction {
    /// An action with no trigger conditions, always eligible and never timing out
    /// on its own; its assets are fetched at display time, as with `prefetch: false`,
    /// since no prefetch ever saw them.
    public init(localID id: String, message: InAppMessage) {
        self.init(
            id: id, priority: 0, startTime: nil, endTime: nil, delay: 0, timeout: .infinity,
            minSecondsSinceLastTrigger: nil, prefetch: false, conditions: [], message: message)
    }
}
