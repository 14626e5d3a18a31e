import AssetCache
import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// SIGINT, SIGTERM and `--max-run-time` end a run the same way: the prefetcher is
/// stopped, the report of what finished is printed, and the exit code says why.
final class RunInterruption: @unchecked Sendable {
    private var sources: [DispatchSourceSignal] = []
    private let lock = Mutex(())
    private var caught: Int32?
    private var timedOut = false

    /// Whether a signal or `--max-run-time` ended the run before it was done.
    var stoppedEarly: Bool {
        lock.withLock { _ in caught != nil || timedOut }
    }

    /// 130 or 143 once a signal stopped the run.
    var exitStatus: Int32? {
        lock.withLock { _ in caught.map { 128 + $0 } }
    }

    /// `maxRunTime` is counted from `startedAt`, the start of the run.
    init(stopping prefetcher: Prefetcher, maxRunTime: Double?, startedAt: DispatchTime) {
        for number in [SIGINT, SIGTERM] {
            // The default action would kill the process mid-commit; a dispatch
            // source turns the signal into an ordinary callback instead.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [self] in
                lock.withLock { _ in if caught == nil { caught = number } }
                prefetcher.stop(reason: "interrupted by \(number == SIGINT ? "SIGINT" : "SIGTERM")")
            }
            source.resume()
            sources.append(source)
        }
        if let maxRunTime {
            DispatchQueue.global().asyncAfter(deadline: startedAt + maxRunTime) { [self] in
                lock.withLock { _ in timedOut = true }
                prefetcher.stop(reason: "the run reached --max-run-time \(Self.format(maxRunTime)) s")
            }
        }
    }

    private static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}
