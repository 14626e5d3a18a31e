#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A file `prefetch publish` writes (the manifest, its `.sig`, the versions
/// file), replaced whole: a temporary file beside it, flushed, renamed over
/// it, the directory flushed. A reader sees the old bytes or the new, never
/// part; after a crash the name holds one or the other.
package struct ReplacedFile {
    let directory: Directory
    let name: String

    package init(path: String) throws(FileSystem.Failure) {
        let slash = path.lastIndex(of: "/")
        let parent = slash.map { String(path[..<$0]) } ?? "."
        directory = try Directory.open(path: parent.isEmpty ? "/" : parent)
        name = slash.map { String(path[path.index(after: $0)...]) } ?? path
    }

    /// The file's bytes now; nil when there is none. Over `limit`, or a link, is an error.
    package func contents(limit: Int) throws(FileSystem.Failure) -> Data? {
        guard directory.status(name) != nil else { return nil }
        guard let bytes = directory.contents(of: name, limit: limit) else {
            throw FileSystem.Failure(operation: "read", path: directory.path(of: name), code: EINVAL,
                                     reason: "not a regular file of at most \(limit) bytes (links are not followed)")
        }
        return Data(bytes)
    }

    package func replace(with data: Data, mode: mode_t) throws(FileSystem.Failure) {
        let temporary = ".\(name).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let fd = try directory.createFile(temporary, mode: mode)
        let written = data.withUnsafeBytes { LibC.writeAll(fd, $0) } && fsync(fd) == 0
        let code = errno
        close(fd)
        guard written else {
            _ = directory.unlink(temporary)
            throw FileSystem.Failure(operation: "write", path: directory.path(of: temporary), code: code)
        }
        do {
            try directory.rename(temporary, to: directory, as: name)
        } catch {
            _ = directory.unlink(temporary)
            throw error
        }
        try directory.sync()
    }
}
