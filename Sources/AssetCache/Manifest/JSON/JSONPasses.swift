import Synchronization

/// Counts the passes readers make over JSON texts within a task: a test holds a
/// manifest to being read once, every byte of it by one tokenizer. Unset (the
/// default), it costs one task-local read per document.
package final class JSONPasses: Sendable {
    /// The bytes each pass read, in order.
    private let passes = Mutex<[Int]>([])

    @TaskLocal package static var current: JSONPasses?

    package init() {}

    package var bytesReadByEachPass: [Int] { passes.withLock { $0 } }

    func record(bytes: Int) {
        passes.withLock { $0.append(bytes) }
    }
}
