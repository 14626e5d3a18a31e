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
    private let jobs = Mutex<[@Sendable () -> Void]>([])
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
            jobs.withLock { $0.append { continuation.resume(returning: work()) } }
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
            guard let job = jobs.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { return }
            job()
        }
    }
}
