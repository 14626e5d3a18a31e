#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The unpacked tree of the version of a URL that a new ZIP replaces, whose
/// unchanged files the new tree links instead of writing them again (issue 30):
/// on flash, a rewritten 2 MB image is 2 MB of wear for nothing. Trees are
/// immutable — nothing in the cache writes a tree file in place, a repair
/// removes and unpacks afresh — so two trees may share an inode.
///
/// Nothing here is trusted to say that a file is unchanged, not the entry's
/// name, CRC-32 and size, nor the tree's digest list: a candidate (same path,
/// same size) is compared byte for byte with the new entry as it is
/// decompressed, which a full unpack does anyway for the CRC check
/// (``ReusableFile``). A read costs what hashing the file would, and no flash.
final class PreviousTree {
    private let root: Directory

    init(root: Directory) {
        self.root = root
    }

    /// The file at `components` when it may stand for an entry of `size` bytes:
    /// a regular file (reached without following a link) of exactly that size,
    /// ours and of the mode unpacking gives (0644), so that linking it changes
    /// neither owner nor mode. nil otherwise: the entry is then written.
    func file(_ components: [String], size: Int64) -> ReusableFile? {
        var parent = root
        for component in components.dropLast() {
            guard let next = try? parent.openDirectory(component) else { return nil }
            parent = next
        }
        let name = components[components.count - 1]
        // O_NONBLOCK: a FIFO planted here must not hang the open.
        guard let fd = try? parent.openFile(name, O_RDONLY | O_NONBLOCK) else { return nil }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, Int64(info.st_size) == size,
              info.st_uid == geteuid(), info.st_mode & 0o7777 == 0o644, info.st_nlink >= 1
        else {
            close(fd)
            return nil
        }
        return ReusableFile(directory: parent, name: name, descriptor: fd, identity: info)
    }
}
