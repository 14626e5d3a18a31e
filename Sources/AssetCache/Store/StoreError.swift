/// Why the cache directory could not be used.
public enum StoreError: Error, Sendable, CustomStringConvertible {
    /// The directory is not a cache this tool made; it is never adopted or swept.
    case refused(path: String, reason: String)
    /// The directory, or one inside it, could be changed by someone else; the
    /// reason names it and the fix.
    case insecure(path: String, reason: String)
    /// Another writer holds the lock.
    case locked(path: String)
    /// The disk said no (full, permissions, I/O).
    case io(String)

    public var description: String {
        switch self {
        case .refused(let path, let reason): "refusing cache directory \(path): \(reason)"
        case .insecure(let path, let reason): "refusing cache directory \(path): \(reason)"
        case .locked(let path): "the cache \(path) is locked by another run; try again later or pass --wait SECONDS"
        case .io(let message): "cache storage failed: \(message)"
        }
    }
}
