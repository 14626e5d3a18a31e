import Synchronization

/// Connections libcurl opened for an engine's requests (`CURLINFO_NUM_CONNECTS`
/// summed): 0 for a request that reused one, so the total shows how well
/// keep-alive and HTTP/2 multiplexing worked. Counted on the multi thread, read
/// by whoever owns the engine.
final class ConnectionTally: Sendable {
    private let count = Atomic<Int>(0)

    func add(_ connections: Int) {
        guard connections > 0 else { return }
        count.wrappingAdd(connections, ordering: .releasing)
    }

    var total: Int { count.load(ordering: .acquiring) }
}
