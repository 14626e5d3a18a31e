import Synchronization

/// The objects a run's assets hold between their download and their commit:
/// an eviction during the run (``RoomMaker``) must not remove an object or
/// tree that one of them has just found already stored (same bytes under
/// another URL) and will name in its ref. A hold and a removal of the same
/// object exclude each other: either the hold comes first and the object
/// stays, or the removal is complete before the asset looks.
final class ObjectHolds: Sendable {
    private let held = Mutex<[String: Int]>([:])

    func hold(_ sha256: String) {
        held.withLock { $0[sha256, default: 0] += 1 }
    }

    func release(_ sha256: String) {
        held.withLock { held in
            if let count = held[sha256], count > 1 { held[sha256] = count - 1 } else { held[sha256] = nil }
        }
    }

    /// `remove`'s answer, run under the lock; nil, without running it, when
    /// `sha256` is held.
    func unlessHeld(_ sha256: String, _ remove: () -> CacheStore.Removal) -> CacheStore.Removal? {
        held.withLock { held in held[sha256] == nil ? remove() : nil }
    }
}
