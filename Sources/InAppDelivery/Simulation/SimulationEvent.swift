/// One line of a `simulate` events file (docs/delivery.md): a trigger event, or
/// something the app or the user did.
public enum SimulationEvent: Sendable, Equatable {
    case trigger(TriggerEvent)
    case dismiss
    case background
    case foreground
    case orientation(DeviceOrientation)
    case displayNext
}

/// An event at its time: seconds after the simulation's start.
public struct TimedEvent: Sendable, Equatable {
    public var at: Double
    public var event: SimulationEvent
    /// Where it came from in the file, for messages.
    public var line: Int

    public init(at: Double, event: SimulationEvent, line: Int = 0) {
        self.at = at
        self.event = event
        self.line = line
    }
}
