import Synchronization

/// Holds the non-urgent assets back while the urgent ones go first (`run
/// --head-start`, ``PrefetchOptions/urgentHeadStart``).
///
/// Session-start and push-click assets race the user (docs/limits.md), and jumping
/// the transfer queue is not enough: the other assets' pipelines, started at the
/// same moment, take the CPU the urgent ones need to arrive, decode and commit.
/// So the others wait here until every urgent asset is done, or until the head
/// start runs out, whichever comes first.
final class HeadStart: Sendable {
    private struct State {
        var isOpen: Bool
        var remaining: Int
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    /// Open at once when there is nothing urgent.
    init(urgent: Int) {
        state = Mutex(State(isOpen: urgent <= 0, remaining: urgent))
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let isOpen = state.withLock { state in
                if !state.isOpen { state.waiters.append(continuation) }
                return state.isOpen
            }
            if isOpen { continuation.resume() }
        }
    }

    /// One urgent asset is ready, failed or skipped.
    func urgentFinished() {
        let done = state.withLock { state in
            state.remaining -= 1
            return state.remaining <= 0
        }
        if done { open() }
    }

    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
