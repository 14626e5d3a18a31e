#if canImport(Glibc)
import Glibc
#endif

/// Display leases (docs/cache-format.md): `leases/ab/<sha256>`, one empty file
/// per object, on which a display app holds a shared `flock(2)` while it shows
/// the object (or, for a ZIP, its tree). The kernel drops the lock with the
/// app's last descriptor, so a lease never outlives the app.
extension CacheStore {
    /// The lease file of the object (and tree) named `sha256`, as the index names it.
    public func leasePath(_ sha256: String) -> String { "\(root)/leases/\(sha256.prefix(2))/\(sha256)" }

    /// Whether a display app holds the lease of `sha256` now: its lease file is
    /// there and an exclusive lock on it cannot be had without waiting. No file,
    /// no lease. Reached from the root's descriptor, no link followed.
    public func isLeased(sha256: String) -> Bool {
        guard sha256.utf8.count == 64, let leases = try? directory.openDirectory("leases"),
              let shard = try? leases.openDirectory(String(sha256.prefix(2))),
              let fd = try? shard.openFile(sha256, O_RDONLY | O_NONBLOCK)
        else { return false }
        defer { close(fd) }
        // Only tried: a lock had here is dropped with the descriptor just after.
        return flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK
    }
}
