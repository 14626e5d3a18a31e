#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A secret read from a file only its owner may read (a signing key, its
/// passphrase): the mode is checked on the opened descriptor, so the file
/// checked is the file read, and a link in its place is not followed.
enum PrivateFile {
    static func read(_ path: String, maxSize: Int, as what: String) throws(SignifySecretKeyError) -> Data {
        let fd = LibC.open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            let reason = errno == ELOOP ? "it is a symbolic link; name the file itself" : String(cString: strerror(errno))
            throw .unreadable(path: path, reason: reason, what: what)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno)), what: what) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .unreadable(path: path, reason: "it is not a regular file", what: what) }
        guard info.st_mode & 0o077 == 0 else { throw .exposed(path: path, mode: UInt32(info.st_mode), what: what) }
        var bytes = [UInt8](repeating: 0, count: maxSize + 1)
        var count = 0
        while count < bytes.count {
            let got = bytes.withUnsafeMutableBytes { LibC.read(fd, $0.baseAddress! + count, $0.count - count) }
            if got < 0 && errno == EINTR { continue }
            guard got >= 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno)), what: what) }
            if got == 0 { break }
            count += got
        }
        guard count <= maxSize else { throw .unreadable(path: path, reason: "it is longer than \(maxSize) bytes", what: what) }
        return Data(bytes[..<count])
    }
}
