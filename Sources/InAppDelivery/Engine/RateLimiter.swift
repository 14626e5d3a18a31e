import AssetCache

/// The minimum interval between accepted triggers (docs/delivery.md). Only triggers are
/// limited: showing what is already on the stack never is.
struct RateLimiter: Sendable {
    enum Outcome: Equatable {
        case allowed
        case limited(elapsed: Double, required: Double)
    }

    var minimumInterval: Double
    /// When the last trigger was accepted (displayed, stacked, delayed or a control),
    /// not when something was last shown: a trigger that merely waits still counts.
    private(set) var lastAccepted: Double?

    init(minimumInterval: Double) {
        self.minimumInterval = minimumInterval
    }

    /// The action's own `min_seconds_since_last_trigger` wins over the global one.
    func check(_ action: TriggeredAction, at now: Double) -> Outcome {
        guard let lastAccepted else { return .allowed }
        let required = action.minSecondsSinceLastTrigger ?? minimumInterval
        let elapsed = now - lastAccepted
        return elapsed >= required ? .allowed : .limited(elapsed: elapsed, required: required)
    }

    mutating func accept(at now: Double) {
        lastAccepted = now
    }
}
