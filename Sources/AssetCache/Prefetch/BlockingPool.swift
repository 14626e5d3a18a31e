import Dispatch

/// Validation and unpacking block on disk and CPU, so they run on threads of their
/// own rather than Swift's cooperative pool, at most `width` at a time, while the
/// transfer thread keeps downloading the next assets.
final class ValidationPool: Sendable {
    private let queue = DispatchQueue(label: "AssetCache.validation", attributes: .concurrent)
    private let slots: DispatchSemaphore

    init(width: Int) {
        slots = DispatchSemaphore(value: max(1, width))
    }

    func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            queue.async { [slots] in
                slots.wait()
                defer { slots.signal() }
                continuation.resume(returning: work())
            }
        }
    }
}
