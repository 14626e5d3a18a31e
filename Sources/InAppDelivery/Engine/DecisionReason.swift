import AssetCache

/// The `reason` of a decision.
public enum DecisionReason: Sendable, Equatable, CustomStringConvertible {
    case discarded(DiscardReason)
    case queued(QueueReason)
    case minimumInterval

    public var description: String {
        switch self {
        case .discarded(let reason): reason.rawValue
        case .queued(let reason): reason.rawValue
        case .minimumInterval: "minimum_interval"
        }
    }
}
