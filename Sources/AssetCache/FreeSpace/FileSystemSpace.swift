#if canImport(Glibc)
import Glibc
#endif

/// What `fstatvfs(2)` says of the file system holding a directory: its size,
/// the space an unprivileged program may still take (`f_bavail`: root's
/// reserved blocks are not the device's other programs'), and its block size.
public struct FileSystemSpace: Sendable, Equatable {
    public var size: Int64
    public var free: Int64
    public var block: Int64

    /// Whether a failed write's `errno` says the file system (or the
    /// user's quota on it) is full.
    package static func isFull(_ code: Int32) -> Bool { code == ENOSPC || code == EDQUOT }

    /// nil when the system cannot say: the call failed, or the file system
    /// reports no size at all (FUSE file systems such as LazyFS answer 0
    /// blocks, 0 free), where a floor would defer every asset for want of
    /// room that is there.
    package static func of(_ descriptor: Int32) -> FileSystemSpace? {
        var info = statvfs()
        guard fstatvfs(descriptor, &info) == 0, info.f_blocks > 0 else { return nil }
        let unit = Int64(info.f_frsize > 0 ? info.f_frsize : info.f_bsize)
        return FileSystemSpace(
            size: Int64(clamping: UInt64(info.f_blocks).multipliedReportingOverflow(by: UInt64(unit)).partialValue),
            free: Int64(clamping: UInt64(info.f_bavail).multipliedReportingOverflow(by: UInt64(unit)).partialValue),
            block: max(512, unit))
    }
}

extension CacheStore {
    /// The cache's file system, asked through the cache directory's own descriptor.
    package func fileSystemSpace() -> FileSystemSpace? { FileSystemSpace.of(directory.descriptor) }
}
