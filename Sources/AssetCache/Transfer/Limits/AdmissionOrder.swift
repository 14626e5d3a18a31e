import Synchronization

/// Under a byte budget, assets claim it in plan order (session-start and
/// push-click first, then by priority): an asset's request goes out once every
/// earlier asset has settled what it takes, that is once its response head
/// (with its Content-Length) arrived, its transfer ended, or it needed no
/// request. Without this, transfers side by side would claim in the order
/// their heads happen to arrive. Bodies still arrive side by side; only the
/// requests wait, one round trip each.
final class AdmissionOrder: Sendable {
    private struct State {
        /// The first position not settled.
        var turn = 0
        var settled: Set<Int> = []
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    /// Returns once every position before `position` has settled.
    func waitForTurn(_ position: Int) async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                if state.turn >= position { return true }
                state.waiters[position] = continuation
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// `position` has taken what it takes; idempotent.
    func settle(_ position: Int) {
        let ready = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard position >= state.turn, state.settled.insert(position).inserted else { return nil }
            while state.settled.remove(state.turn) != nil { state.turn += 1 }
            return state.waiters.removeValue(forKey: state.turn)
        }
        ready?.resume()
    }
}
