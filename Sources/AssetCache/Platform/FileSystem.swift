#if canImport(Glibc)
import Glibc
#endif

/// The errors of the store's file-system calls, naming the path, and the few
/// steps built from several calls.
package enum FileSystem {
    package struct Failure: Error, CustomStringConvertible {
        package var operation: String
        package var path: String
        package var code: Int32
        /// Said instead of the system's text for `code`.
        package var reason: String?

        package init(operation: String, path: String, code: Int32, reason: String? = nil) {
            self.operation = operation
            self.path = path
            self.code = code
            self.reason = reason
        }

        package var description: String { "\(operation) \(path): \(reason ?? String(cString: strerror(code)))" }
    }

    /// Writes a small file whole (refs, state): temp file in `temporary`, fsync,
    /// rename over `name` in `directory` (a link there is replaced, never
    /// followed), fsync of `directory`.
    static func writeAtomically(
        _ bytes: [UInt8], to directory: Directory, as name: String, temporary: Directory, mode: mode_t
    ) throws(Failure) {
        let temp = try writeTemporary(bytes, in: temporary, mode: mode)
        try temporary.rename(temp, to: directory, as: name)
        try directory.sync()
    }

    /// A new file in `directory` holding `bytes` with exactly `mode`, synced
    /// unless a batch flushes it later (``CommitBatch``); its name.
    static func writeTemporary(_ bytes: [UInt8], in directory: Directory, mode: mode_t, sync: Bool = true) throws(Failure) -> String {
        try writeTemporary(in: directory, mode: mode, sync: sync) { write in write(bytes) }
    }

    /// The same from pieces `produce` hands its writer, so that a large file is
    /// never whole in memory; the first failed write ends the file.
    static func writeTemporary(
        in directory: Directory, mode: mode_t, sync: Bool = true, _ produce: (_ write: ([UInt8]) -> Void) -> Void
    ) throws(Failure) -> String {
        let temp = ".\(UInt64.random(in: 0...UInt64.max)).tmp"
        let fd = try directory.createFile(temp, mode: mode)
        var failure: Int32?
        produce { bytes in
            guard failure == nil else { return }
            var written = 0
            while written < bytes.count {
                let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, bytes.count - written) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else {
                    failure = errno
                    return
                }
                written += n
            }
        }
        if let code = failure {
            close(fd)
            directory.unlink(temp)
            throw Failure(operation: "write", path: directory.path(of: temp), code: code)
        }
        if sync && fsync(fd) != 0 {
            let code = errno
            close(fd)
            directory.unlink(temp)
            throw Failure(operation: "fsync", path: directory.path(of: temp), code: code)
        }
        close(fd)
        return temp
    }

    /// Creates `path` and any missing parent, each with mode 0755 whatever the
    /// umask. These are above the cache, named by the user: links there are followed.
    static func makeDirectories(_ path: String) throws(Failure) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            guard mkdir(prefix, 0o755) == 0 else {
                if errno == EEXIST { continue }
                throw Failure(operation: "mkdir", path: prefix, code: errno)
            }
            let fd = open(prefix, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard fd >= 0 else { throw Failure(operation: "open", path: prefix, code: errno) }
            defer { close(fd) }
            guard fchmod(fd, 0o755) == 0 else { throw Failure(operation: "chmod", path: prefix, code: errno) }
        }
    }
}
