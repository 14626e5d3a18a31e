import Synchronization

/// The engine's ``LinkOutages``: written by the multi thread as outages end,
/// read by whoever owns the engine once its transfers are done.
final class LinkTally: Sendable {
    private let state = Mutex(LinkOutages())

    func record(_ watch: LinkWatch) {
        let seconds = Double(watch.downTime.components.seconds) + Double(watch.downTime.components.attoseconds) / 1e18
        state.withLock { $0 = LinkOutages(outages: watch.outages, downSeconds: seconds) }
    }

    var current: LinkOutages { state.withLock { $0 } }
}
