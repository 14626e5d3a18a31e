import Synchronization

/// `--max-download-bytes`: the body bytes one run's transfers may move between
/// them (docs/limits.md#byte-budget). A transfer takes from it before it asks
/// (the size a ref remembers), when its response head names a Content-Length,
/// and as bytes arrive beyond what it took; it gives back what it took and
/// did not receive when it ends. So the bytes moved stay within the budget but
/// for the chunk in hand when a body without a Content-Length crosses it.
package final class ByteBudget: Sendable {
    package let limit: Int64
    /// Bytes received, plus bytes held for transfers still under way.
    private let taken = Mutex<Int64>(0)

    package init(limit: Int64) {
        self.limit = max(0, limit)
    }

    /// What neither a received byte nor a transfer under way has claimed.
    package var left: Int64 { taken.withLock { limit - $0 } }

    /// All of `bytes`, or nothing when they do not fit.
    func take(_ bytes: Int64) -> Bool {
        guard bytes > 0 else { return true }
        return taken.withLock { taken in
            guard bytes <= limit - taken else { return false }
            taken += bytes
            return true
        }
    }

    /// Bytes that were received past what fit, already across the network: counted anyway.
    func force(_ bytes: Int64) {
        taken.withLock { $0 += max(0, bytes) }
    }

    func giveBack(_ bytes: Int64) {
        guard bytes > 0 else { return }
        taken.withLock { $0 -= bytes }
    }
}
