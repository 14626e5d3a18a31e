import Dispatch
import Synchronization

/// Triggers handed from the thread that reads a manifest to the one that builds
/// its model, in batches: on a large manifest the two take about as long as each
/// other, so with a second core the model of one batch is built while the next
/// is read. At most `depth` batches wait, so memory stays bounded however large
/// the manifest. One sender, one receiver.
final class TriggerHandoff: Sendable {
    /// Optional so that the builder can take each trigger out instead of copying it.
    typealias Batch = [(trigger: RawTrigger?, index: Int)]

    private let waiting = Mutex<(batches: [Batch], closed: Bool)>(([], false))
    private let available = DispatchSemaphore(value: 0)
    private let room: DispatchSemaphore

    init(depth: Int = 4) {
        room = DispatchSemaphore(value: depth)
    }

    /// Blocks while `depth` batches wait already.
    func send(_ batch: Batch) {
        room.wait()
        waiting.withLock { $0.batches.append(batch) }
        available.signal()
    }

    /// No more batches: `next()` returns nil once the waiting ones are taken.
    func close() {
        waiting.withLock { $0.closed = true }
        available.signal()
    }

    func next() -> Batch? {
        available.wait()
        let batch = waiting.withLock { $0.batches.isEmpty ? nil : $0.batches.removeFirst() }
        if batch != nil { room.signal() }
        return batch
    }
}
