#if canImport(Glibc)
import Glibc
#endif
import Logging

/// A writer's exclusive `flock` on one lease file while it removes the object,
/// the tree and the tree's digest list that share its name: no display app can
/// take a lease meanwhile. ``end(removingLeaseFile:)`` unlinks the lease file
/// (still under the lock, so an app waiting for it gets a file no longer there,
/// and finds the object gone) and lets the lock go. A missing lease file, or a
/// link or other non-file there, holds no lease: the hold then has no
/// descriptor, and ending it removes such an entry as itself.
final class RemovalHold {
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
