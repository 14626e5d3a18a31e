#if canImport(Glibc)
import Glibc
#endif
import Logging

/// `<cache>/lock`, which every writer holds exclusively for its whole run
/// (docs/cache-format.md#writers). flock(2) needs no write access — any
/// descriptor takes `LOCK_EX` — so whoever can open the file can lock every
/// writer out. The file is therefore the writer's own, mode 0600: a reader,
/// who may read everything else of the cache, cannot open it at all. Each
/// writer checks that on every open, as the directories are checked
/// (``DirectoryTrust``), and repairs the mode (0644 in every cache made
/// before this check).
enum WriterLock {
    static let name = "lock"
    static let mode: mode_t = 0o600

    /// The lock file's descriptor, opened (made, if absent) below the root's
    /// descriptor, never through a link. Refused when it is not a regular file
    /// or belongs to another user; a mode other than 0600 is repaired on the
    /// descriptor itself. The descriptor is read-only: flock needs no more,
    /// and fchmod needs only ownership.
    static func open(in directory: Directory, root: String, logger: Logger) throws(StoreError) -> Int32 {
        let lock = directory.path(of: name)
        let fd: Int32
        do throws(FileSystem.Failure) {
            // O_NONBLOCK: a FIFO there must not hang the open.
            fd = try directory.openFile(name, O_CREAT | O_RDONLY | O_NONBLOCK, mode: mode)
        } catch where error.code == ELOOP || error.code == EISDIR || error.code == ENXIO {
            throw .insecure(path: root, reason: notALockFile(lock, kind: directory.kind(of: name)))
        } catch where StoreError.isPermission(error.code) {
            // Closed to us: another user's file, or ours at mode 0.
            if let owner = directory.status(name)?.st_uid, owner != geteuid() {
                throw refusal(lock, owner: owner, in: directory, root: root)
            }
            throw StoreError(error, root: root)
        } catch {
            throw StoreError(error, root: root)
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let failure = FileSystem.Failure(operation: "stat", path: lock, code: errno)
            close(fd)
            throw StoreError(failure, root: root)
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw .insecure(path: root, reason: notALockFile(lock, kind: directory.kind(of: name)))
        }
        guard info.st_uid == geteuid() else {
            close(fd)
            throw refusal(lock, owner: info.st_uid, in: directory, root: root)
        }
        if info.st_mode & 0o7777 != mode {
            guard fchmod(fd, mode) == 0 else {
                let failure = FileSystem.Failure(operation: "chmod", path: lock, code: errno)
                close(fd)
                throw StoreError(failure, root: root)
            }
            logger.info("\(lock) was mode 0\(String(info.st_mode & 0o7777, radix: 8)), which lets readers lock writers out; it is now 0600")
        }
        return fd
    }

    /// The exclusive lock on `fd`; with `wait`, a lock held by another writer
    /// is tried again until that many seconds have passed. `fd` is closed when
    /// the lock is not had.
    static func take(_ fd: Int32, in directory: Directory, root: String, wait: Double, logger: Logger) throws(StoreError) {
        let deadline = ContinuousClock.now + CheckedNumber.duration(seconds: wait)
        var waiting = false
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            // flock(2) has no timeout; a short poll keeps --wait bounded. (BoundedLock
            // would not poll, but it takes SIGALRM, which a library must leave to the app.)
            if code == EWOULDBLOCK && ContinuousClock.now < deadline {
                if !waiting { logger.info("the cache is locked by another run; waiting up to \(wait) s for it") }
                waiting = true
                usleep(50_000)
                continue
            }
            close(fd)
            if code == EWOULDBLOCK { throw .locked(path: root) }
            throw .io(FileSystem.Failure(operation: "flock", path: directory.path(of: name), code: code).description)
        }
    }

    private static func notALockFile(_ lock: String, kind: String) -> String {
        "\(lock) is a \(kind), not the writers' lock file, and the cache never follows or uses one; "
            + "remove it (\(kind == "directory" ? "rm -r" : "rm") \(lock)) and the next writer makes the lock file again"
    }

    /// A lock of `owner`, not the caller. The cache owner's own lock, in a
    /// cache the caller may not write (root's, say): run as its owner. A lock
    /// of anyone else is not the cache's: whoever owns it can open it and lock
    /// every writer out, so it is never used.
    private static func refusal(_ lock: String, owner: uid_t, in directory: Directory, root: String) -> StoreError {
        if owner == directory.status()?.st_uid {
            return .denied(path: root, reason: "\(lock) belongs to the cache's owner, uid \(owner), not to you (uid \(geteuid()))")
        }
        return .insecure(
            path: root,
            reason: "\(lock) belongs to uid \(owner), not to you (uid \(geteuid())), and whoever can open it can lock every writer out; "
                + "remove it (rm \(lock)) and the next writer makes it again, yours and mode 0600")
    }
}
