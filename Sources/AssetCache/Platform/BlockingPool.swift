#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
import Synchronization

/// Work that blocks on disk or CPU — decoding, unpacking, fsync — runs on threads
/// of its own rather than Swift's cooperative pool, `width` at a time, first come
/// first served, while the transfer thread keeps downloading the next assets.
///
/// The threads are made here rather than borrowed from Dispatch: on Linux,
/// Dispatch adds threads for blocked work only slowly, and a pool whose work
/// waits on fsync needs all its threads at once.
final class BlockingPool: Sendable {
    /// Each job does its work and returns how to hand the result over.
    private let jobs = Mutex<[@Sendable () -> @Sendable () -> Void]>([])
    private let available = DispatchSemaphore(value: 0)
    private let width: Int

    init(width: Int, name: String) {
        self.width = max(1, width)
        for index in 0..<self.width {
            DetachedThread.start(name: "\(name) \(index + 1)") { [self] in work() }
        }
    }

    func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            jobs.withLock {
                $0.append {
                    let result = work()
                    return { continuation.resume(returning: result) }
                }
            }
            available.signal()
        }
    }

    /// Lets the threads end once the work already given is done.
    func shutdown() {
        for _ in 0..<width { available.signal() }
    }

    private func work() {
        while true {
            available.wait()
            guard var job = jobs.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { return }
            let handOver = job()
            // The work's captures (a store, and with it the cache's lock) are let
            // go before its caller goes on: a run that returned must not leave
            // the lock held by a thread of its pool.
            job = { {} }
            handOver()
        }
    }
}
