import CCurl
import Synchronization

/// The multi handle's pointer, for the one call that is safe from any thread:
/// `curl_multi_wakeup`. Every other use stays on the multi thread.
struct MultiHandle: @unchecked Sendable {
    let raw: UnsafeMutableRawPointer
}

/// A request the multi thread has not seen yet.
struct TransferSubmission: Sendable {
    var request: TransferRequest
    var ticket: TransferTicket
    var continuation: CheckedContinuation<TransferResult, Never>
}

enum TransferCommand: Sendable {
    case start(TransferSubmission)
    case cancel(UInt64)
    /// Ends every transfer now, and every later one at once; the reason goes
    /// into their failure messages.
    case cancelAll(reason: String)
}

/// How other threads reach the multi thread: append under a mutex, then wake
/// `curl_multi_poll`. Waking happens under the same mutex as closing, so nobody
/// can wake a multi handle that the thread has already cleaned up.
final class TransferInbox: Sendable {
    private struct State {
        var commands: [TransferCommand] = []
        var isClosed = false
    }

    private let multi: MultiHandle
    private let state = Mutex(State())

    init(multi: MultiHandle) {
        self.multi = multi
    }

    /// False once closed: the caller then answers the request itself.
    func post(_ command: TransferCommand) -> Bool {
        state.withLock { state in
            guard !state.isClosed else { return false }
            state.commands.append(command)
            ccurl_multi_wakeup(multi.raw)
            return true
        }
    }

    func close() {
        state.withLock { state in
            guard !state.isClosed else { return }
            state.isClosed = true
            ccurl_multi_wakeup(multi.raw)
        }
    }

    /// Everything posted so far, in posting order, and whether the inbox is closed.
    /// After it has answered closed, no one touches the multi handle again.
    func take() -> (commands: [TransferCommand], isClosed: Bool) {
        state.withLock { state in
            defer { state.commands.removeAll() }
            return (state.commands, state.isClosed)
        }
    }
}
