#if canImport(Glibc)
import Glibc
#endif

/// The package is built and tested on Linux (Glibc) only. Files that call libc
/// import it behind `#if canImport(Glibc)`; the calls whose spelling is Glibc's
/// own (a field name, a module-qualified call, `/proc`) are gathered here, so a
/// port to another libc (Darwin: `import Darwin`, `st_mtimespec`, no `/proc`)
/// starts in this file.
package enum LibC {
    /// open(2) by path. Qualified by the module because `open` alone can mean a
    /// method of the type that calls it.
    package static func open(_ path: String, _ flags: Int32) -> Int32 {
        Glibc.open(path, flags)
    }

    /// read(2). Qualified for the same reason: a type with a `read` method calls it.
    package static func read(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        Glibc.read(fd, buffer, count)
    }

    /// write(2) until every byte is written; false on an error (`errno` says which).
    package static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var written = 0
        while written < bytes.count {
            let count = Glibc.write(fd, bytes.baseAddress! + written, bytes.count - written)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            written += count
        }
        return true
    }

    /// A file's last modification, in seconds since the epoch.
    package static func modificationTime(_ info: stat) -> Double {
        Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
    }

    /// Whether `/proc/self/fd/N` names open descriptor N (Linux's procfs).
    package static let hasProcFD = access("/proc/self/fd", X_OK) == 0
}
