import Synchronization

/// Shared between the task that awaits a transfer and the multi thread. The flag
/// closes the race where a task is cancelled before its transfer reaches the
/// multi thread: the cancel message finds nothing, but the start sees the flag.
final class TransferTicket: Sendable {
    let id: UInt64
    private let cancelled = Atomic<Bool>(false)

    init(id: UInt64) {
        self.id = id
    }

    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    func cancel() {
        cancelled.store(true, ordering: .releasing)
    }
}
