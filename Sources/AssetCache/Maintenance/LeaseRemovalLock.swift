#if canImport(Glibc)
import Glibc
#endif
import Logging

/// The lock a writer takes on an object's lease file while it removes that
/// object, and the tree and the tree's digest list that share its name: an
/// exclusive `flock`, taken without waiting (``CacheStore/lockForRemoval(_:)``
/// gives none while a display app leases the object), so no app can take a
/// lease meanwhile. ``end(removingLeaseFile:)`` unlinks the lease file (still
/// under the lock, so an app waiting for it gets a file no longer there, and
/// finds the object gone) and lets the lock go. A missing lease file, or a
/// link or other non-file there, holds no lease: the lock then has no
/// descriptor, and ending it removes such an entry as itself.
final class LeaseRemovalLock {
    private let shard: Directory?
    private let name: String
    private var descriptor: Int32
    private let logger: Logger

    init(shard: Directory?, name: String, descriptor: Int32, logger: Logger) {
        self.shard = shard
        self.name = name
        self.descriptor = descriptor
        self.logger = logger
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Lets the lock go, after unlinking the lease file when what it leased is gone.
    func end(removingLeaseFile: Bool) {
        if removingLeaseFile, let shard, shard.status(name) != nil {
            if descriptor < 0 {
                logger.warning("removed \(shard.path(of: name)): a \(shard.kind(of: name)) where the cache keeps a lease file; it was not followed")
            }
            do {
                try shard.remove(name)
            } catch {
                logger.warning("could not remove the lease file \(shard.path(of: name)): \(error)")
            }
        }
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
    }
}
