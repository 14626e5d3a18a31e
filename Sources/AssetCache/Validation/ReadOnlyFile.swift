#if canImport(Glibc)
import Glibc
#endif

/// Opens a file that a structure check walks and reads its size; on failure, a
/// message naming the path and the system's reason.
enum ReadOnlyFile {
    static func open(_ path: String) -> Result<(descriptor: Int32, size: Int64), UnreadableFile> {
        let fd = LibC.open(path, O_RDONLY | O_CLOEXEC)
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
