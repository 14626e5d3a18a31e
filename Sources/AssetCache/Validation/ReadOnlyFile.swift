import CFileSync
#if canImport(Glibc)
import Glibc
#endif

/// Opens a file that a structure check walks and reads its size; on failure, a
/// message naming the path and the system's reason.
enum ReadOnlyFile {
    static func open(_ path: String) -> Result<(descriptor: Int32, size: Int64), UnreadableFile> {
        // Without an access time to write: a cached ZIP read for a delta, by
        // its /proc/self/fd path, would otherwise dirty its inode once a day
        // under relatime (as Directory.openFile).
        var fd = LibC.open(path, O_RDONLY | O_CLOEXEC | assetcache_o_noatime())
        if fd < 0 && errno == EPERM { fd = LibC.open(path, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { return .failure(UnreadableFile(message: "cannot open '\(path)': \(String(cString: strerror(errno)))")) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            return .failure(UnreadableFile(message: "cannot stat '\(path)': \(reason)"))
        }
        return .success((fd, Int64(info.st_size)))
    }

    struct UnreadableFile: Error {
        var message: String
    }
}
