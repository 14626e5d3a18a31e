import AssetCache
import InAppDelivery

/// Readiness whose asset states a test changes between trigger and display, as
/// an eviction or a failed refetch would.
final class SwitchableReadiness: ReadinessSource {
    var states: [AssetURL: AssetState]
    private(set) var asked: [String] = []

    init(_ states: [AssetURL: AssetState]) {
        self.states = states
    }

    func verdict(for action: TriggeredAction, at now: Double) -> MessageVerdict {
        asked.append(action.id)
        return InMemoryReadiness(states).verdict(for: action, at: now)
    }
}
