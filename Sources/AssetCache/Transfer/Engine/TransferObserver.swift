import Logging
import Synchronization

/// What a run wants to hear from its transfers while they happen, called on the
/// engine's thread: each body chunk adds to one atomic counter (no lock on the
/// hot path), and a retry is logged as it is scheduled.
final class TransferObserver: Sendable {
    let logger: Logger
    private let bytes = Atomic<Int64>(0)
    /// Called once, on the first body bytes: lets a caller (a test) await "data is
    /// flowing" instead of polling for it.
    private let firstBytes: Mutex<(@Sendable () -> Void)?>

    init(logger: Logger, onFirstBytes: (@Sendable () -> Void)? = nil) {
        self.logger = logger
        firstBytes = Mutex(onFirstBytes)
    }

    /// Body bytes received so far: those of retried, failed and cut-off attempts
    /// and of error pages included, headers not.
    var receivedBytes: Int64 { bytes.load(ordering: .relaxed) }

    func received(_ count: Int) {
        if bytes.wrappingAdd(Int64(count), ordering: .relaxed).oldValue == 0, count > 0 {
            firstBytes.withLock { callback in
                callback?()
                callback = nil
            }
        }
    }

    func willRetry(_ url: String, after failure: AssetFailure, attempt: Int, in seconds: Double) {
        logger.notice(
            "retrying \(url) in \(DecimalText.fixed(seconds, digits: 1)) s after attempt \(attempt) failed: \(failure)",
            metadata: ["url": "\(url)", "attempt": "\(attempt)", "error.kind": "\(failure.kind.rawValue)"])
    }

    // The link's outages are the run's news, not one asset's: `notice`, as retries are.

    func linkDown(after failure: AssetFailure, wait: String) {
        logger.notice(
            "link down: \(failure); transfers wait for it up to \(wait) s (--link-wait) without using up attempts",
            metadata: ["error.kind": "\(failure.kind.rawValue)"])
    }

    func linkBack(after outage: Duration, resuming count: Int) {
        let seconds = Double(outage.components.seconds) + Double(outage.components.attoseconds) / 1e18
        logger.notice("link back after \(DecimalText.fixed(seconds, digits: 1)) s: resuming \(count) transfers")
    }

    func linkGivenUp(wait: String, failing count: Int) {
        logger.notice("link still down after \(wait) s (--link-wait): \(count) transfers fail; their partial files are kept for the next run")
    }
}
