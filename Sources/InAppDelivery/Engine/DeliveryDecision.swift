/// One thing the engine decided, for the delegate and for `simulate`'s lines.
public struct DeliveryDecision: Sendable, Equatable {
    public enum Action: String, Sendable {
        case displayed, queued, discarded, control
        case rateLimited = "rate_limited"
        case noMatchingTrigger = "no_matching_trigger"
    }

    /// Engine clock time.
    public var at: Double
    public var action: Action
    /// The action (or local message) id; nil for `no_matching_trigger`.
    public var trigger: String?
    public var reason: DecisionReason?
    /// For people: what failed, how long since the last trigger. Not part of the
    /// JSON lines, since it holds paths and URLs that differ between machines.
    public var detail: String?
    /// The event that matched nothing, for `no_matching_trigger`.
    public var event: TriggerEvent?

    public init(
        at: Double, action: Action, trigger: String?, reason: DecisionReason? = nil,
        detail: String? = nil, event: TriggerEvent? = nil
    ) {
        self.at = at
        self.action = action
        self.trigger = trigger
        self.reason = reason
        self.detail = detail
        self.event = event
    }
}
