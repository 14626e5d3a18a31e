import AssetCache
import Dispatch
import Logging
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `--jitter`: a random pause before a run's first request, so that a fleet
/// started by the same cron minute reaches the origin spread out. It is part
/// of the run (inside `--max-run-time`), and SIGINT or SIGTERM end it at once.
enum Jitter {
    /// Waits a uniformly random 0 to `seconds`; the signal that cut it short, if one did.
    static func wait(upTo seconds: Double, logger: Logger) async -> Int32? {
        let delay = Double.random(in: 0...seconds)
        logger.info("waiting \(DecimalText.fixed(delay, digits: 2)) s (--jitter \(Seconds(seconds))) before the first request")
        let pause = Pause()
        // As RunInterruption does: the signal becomes a callback, not the default death.
        let sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { pause.end(signal: number) }
            source.resume()
            return source
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { pause.end(signal: nil) }
        let caught = await pause.ended()
        for (number, source) in zip([SIGINT, SIGTERM], sources) {
            source.cancel()
            // Until the run's own handling takes over, as without --jitter.
            signal(number, SIG_DFL)
        }
        return caught
    }

    /// Ended once, by the delay running out (nil) or a signal, whichever is
    /// first; an end that comes before anyone waits is kept.
    private final class Pause: Sendable {
        private let state = Mutex<(waiter: CheckedContinuation<Int32?, Never>?, ending: Int32??)>((nil, nil))

        func end(signal: Int32?) {
            let waiter = state.withLock { state -> CheckedContinuation<Int32?, Never>? in
                guard state.ending == nil else { return nil }
                state.ending = .some(signal)
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: signal)
        }

        func ended() async -> Int32? {
            await withCheckedContinuation { continuation in
                let ending = state.withLock { state in
                    if state.ending == nil { state.waiter = continuation }
                    return state.ending
                }
                if let ending { continuation.resume(returning: ending) }
            }
        }
    }
}
