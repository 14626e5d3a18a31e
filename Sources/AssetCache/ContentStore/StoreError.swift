#if canImport(Glibc)
import Glibc
#endif

/// Why a cache could not be opened or written.
public enum StoreError: Error, Sendable, CustomStringConvertible {
    /// The directory is not a cache this tool made; it is never adopted or swept.
    case refused(path: String, reason: String)
    /// The directory, or one inside it, could be changed by someone else; the
    /// reason names it and the fix.
    case insecure(path: String, reason: String)
    /// Another writer holds the lock.
    case locked(path: String)
    /// The caller may not use the cache at `path` (its root): the system said
    /// EACCES or EPERM, or a writer met a cache that belongs to another user.
    /// Running as the cache's owner fixes it, not disk space.
    case denied(path: String, reason: String)
    /// The disk said no (read-only, I/O; full, where no asset's commit was under way).
    case io(String)
    /// The file system was full (ENOSPC, EDQUOT) when an asset was committed:
    /// the run defers it (`storage_low`) and keeps what the cache had.
    case noSpace(String)

    /// The one reading of a failed system call on the cache rooted at `root`:
    /// a permission problem is ``denied(path:reason:)``, anything else ``io(_:)``.
    package init(_ failure: FileSystem.Failure, root: String) {
        self = Self.isPermission(failure.code) ? .denied(path: root, reason: failure.description) : .io(failure.description)
    }

    package static func isPermission(_ code: Int32) -> Bool { code == EACCES || code == EPERM }

    /// A failed write of an asset's commit: ``noSpace(_:)`` for a full file system, else ``io(_:)``.
    package static func written(_ failure: FileSystem.Failure) -> StoreError {
        FileSystemSpace.isFull(failure.code) ? .noSpace(failure.description) : .io(failure.description)
    }

    public var description: String {
        switch self {
        case .refused(let path, let reason): "refusing cache directory \(path): \(reason)"
        case .insecure(let path, let reason): "refusing cache directory \(path): \(reason)"
        case .locked(let path): "the cache \(path) is locked by another run; try again later or pass --wait SECONDS"
        case .denied(let path, let reason): "no permission to use the cache \(path): \(reason)"
        case .io(let message), .noSpace(let message): "cache storage failed: \(message)"
        }
    }
}
