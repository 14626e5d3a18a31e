import AssetCache

/// Readiness from a table of asset states, decided by the same rule as the cache
/// (AssetCache's `Readiness.verdict(for:at:asset:)`). For tests, and for `simulate` when no
/// cache exists yet: then every asset is missing and every message with one is
/// discarded, as it would be on a device that never prefetched.
public struct InMemoryReadiness: ReadinessSource, Sendable {
    /// By URL, whatever kind a message uses it as: a table written by hand
    /// states what it means each URL to be.
    public var states: [AssetURL: AssetState]

    public init(_ states: [AssetURL: AssetState] = [:]) {
        self.states = states
    }

    public func verdict(for action: TriggeredAction, at now: Double) -> MessageVerdict {
        Readiness.verdict(for: action, at: now) { url, _ in states[url] }
    }
}
