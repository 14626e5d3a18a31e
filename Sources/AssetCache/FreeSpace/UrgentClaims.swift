import Synchronization

/// Near the free-space floor, session-start and push-click assets claim the
/// room first: the others wait here until every urgent one has claimed (its
/// response head arrived and was granted) or ended. Urgent assets are the
/// first `count` of the plan (``AssetPlan``), so a position says which.
final class UrgentClaims: Sendable {
    private struct State {
        var unsettled: Set<Int>
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    init(count: Int) {
        state = Mutex(State(unsettled: Set(0..<max(0, count))))
    }

    /// Returns once every urgent asset has claimed or ended.
    func wait() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                if state.unsettled.isEmpty { return true }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// The asset at `position` has claimed or ended; idempotent, and nothing
    /// for an asset that is not urgent.
    func settle(_ position: Int) {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard state.unsettled.remove(position) != nil, state.unsettled.isEmpty else { return [] }
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in ready { waiter.resume() }
    }
}
