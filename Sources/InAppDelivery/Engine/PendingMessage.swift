import AssetCache

/// A message accepted by a trigger (or added by the app) and not yet shown.
struct PendingMessage: Sendable {
    var action: TriggeredAction
    var triggeredAt: Double
    var isLocal: Bool

    var id: String { action.id }

    /// `timeout` counts from the trigger, not from reaching the top of the stack.
    var deadline: Double { triggeredAt + action.timeout }

    /// `delay` counts from the trigger too.
    var due: Double { triggeredAt + action.delay }
}
