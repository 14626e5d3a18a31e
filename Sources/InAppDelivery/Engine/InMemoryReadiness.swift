import AssetCache

/// Readiness from a table of asset states, decided by the same rule as the cache
/// (``Readiness/verdict(for:at:asset:)``). For tests, and for `simulate` when no
/// cache exists yet: then every asset is missing and every message with one is
/// discarded, as it would be on a device that never prefetched.
public struct InMemoryReadiness: ReadinessSource, Sendable {
    public var states: [AssetURL: AssetState]

    public init(_ states: [AssetURL: AssetState] = [:]) {
        self.states = states
    }

    public func verdict(for action: TriggeredAction, at now: Double) -> MessageVerdict {
        Readiness.verdict(for: action, at: now) { states[$0] }
    }
}
