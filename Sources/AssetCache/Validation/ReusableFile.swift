#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One file of a ``PreviousTree``, open, that an entry of the new ZIP is
/// compared with as it is decompressed, and linked into the new tree when every
/// byte matched. Closed when dropped.
final class ReusableFile {
    /// Where it is in the previous tree, for `linkat`.
    private let directory: Directory
    private let name: String
    private let descriptor: Int32
    /// What `fstat` said when it was opened: the inode a link must land on.
    private let identity: stat
    private var offset: Int64 = 0
    private var buffer: [UInt8] = []

    init(directory: Directory, name: String, descriptor: Int32, identity: stat) {
        self.directory = directory
        self.name = name
        self.descriptor = descriptor
        self.identity = identity
    }

    deinit { close(descriptor) }

    /// Whether the file's next bytes are `chunk`; false at the first
    /// difference, at its end, or when it cannot be read (the entry is then
    /// written, as it would have been).
    func matches(_ chunk: UnsafeRawBufferPointer) -> Bool {
        if buffer.count < chunk.count { buffer = [UInt8](repeating: 0, count: chunk.count) }
        var filled = 0
        while filled < chunk.count {
            let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + filled, chunk.count - filled, off_t(offset) + off_t(filled)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            filled += count
        }
        offset += Int64(filled)
        return buffer.withUnsafeBytes { memcmp($0.baseAddress!, chunk.baseAddress!, chunk.count) == 0 }
    }

    /// Every byte of the file was matched.
    var isWhole: Bool { offset == Int64(identity.st_size) }

    /// Links this very inode as `newName` in `parent` (`linkat` between directory
    /// descriptors, no link followed) and checks that the new name is it: the
    /// inode compared, still ours, mode 0644, one link more than it had. False,
    /// with nothing left behind, when the file system refuses (`EXDEV`,
    /// `EMLINK`, `EPERM`, no hard links at all) or any check fails: the caller
    /// then writes the entry. Never an error of the run.
    func link(into parent: Directory, as newName: String) -> Bool {
        guard linkat(directory.descriptor, name, parent.descriptor, newName, 0) == 0 else { return false }
        var linked = stat()
        var now = stat()
        guard fstatat(parent.descriptor, newName, &linked, AT_SYMLINK_NOFOLLOW) == 0, fstat(descriptor, &now) == 0,
              linked.st_dev == identity.st_dev, linked.st_ino == identity.st_ino, linked.st_mode & S_IFMT == S_IFREG,
              now.st_uid == geteuid(), now.st_mode & 0o7777 == 0o644, now.st_nlink == identity.st_nlink + 1,
              Int64(now.st_size) == Int64(identity.st_size)
        else {
            unlinkat(parent.descriptor, newName, 0)
            return false
        }
        return true
    }
}
