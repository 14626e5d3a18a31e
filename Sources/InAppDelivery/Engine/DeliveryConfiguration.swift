/// The engine's settings (docs/delivery.md).
public struct DeliveryConfiguration: Sendable {
    /// Seconds between accepted triggers; an action's `min_seconds_since_last_trigger`
    /// overrides it for that action. The seed SDKs' default is 30.
    public var minimumTriggerInterval: Double
    /// The orientation at start; `orientationChanged(_:)` moves it.
    public var orientation: DeviceOrientation

    public init(minimumTriggerInterval: Double = 30, orientation: DeviceOrientation = .portrait) {
        self.minimumTriggerInterval = minimumTriggerInterval
        self.orientation = orientation
    }
}
