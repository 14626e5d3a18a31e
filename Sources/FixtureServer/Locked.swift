import Synchronization

/// Connections run on several event loops at once; the state they share
/// (log, counters, gauges) is guarded by one lock.
final class Locked<Value>: @unchecked Sendable {
    // The lock guards `value` beside it: Mutex would want to own a Sendable value.
    private let lock = Mutex(())
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.withLock { _ in body(&value) }
    }
}
