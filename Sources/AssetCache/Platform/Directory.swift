import CFileSync
#if canImport(Glibc)
import Glibc
#endif

/// An open directory, and the only way the store reaches what is below the cache
/// root: every call names an entry relative to this descriptor and never follows
/// a symbolic link (`O_NOFOLLOW`, `AT_SYMLINK_NOFOLLOW`, `O_DIRECTORY`). No path
/// is resolved twice, none grows with depth (no `ENAMETOOLONG`), and a link
/// planted in the cache — or a directory swapped for one while a run holds it
/// open — leads nowhere.
package final class Directory: Sendable {
    package let descriptor: Int32
    /// For messages and for the paths a report shows; never resolved again.
    package let path: String
    private let owned: Bool

    private init(descriptor: Int32, path: String, owned: Bool = true) {
        self.descriptor = descriptor
        self.path = path
        self.owned = owned
    }

    deinit {
        if owned { close(descriptor) }
    }

    /// The process's working directory, for callers that name files by path
    /// (tests, tools): the last component still is never followed.
    package static let workingDirectory = Directory(descriptor: AT_FDCWD, path: "", owned: false)

    /// A directory by its path, as the user gave it (the cache root): links in
    /// that path are followed, since that is where the user put the cache.
    package static func open(path: String) throws(FileSystem.Failure) -> Directory {
        let fd = LibC.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystem.Failure(operation: "open", path: path, code: errno) }
        return Directory(descriptor: fd, path: path)
    }

    /// The path of an entry, for messages.
    package func path(of name: String) -> String { path.isEmpty ? name : "\(path)/\(name)" }

    /// An existing subdirectory. A link or a file in its place fails (`ENOTDIR`,
    /// or `ELOOP`): it is never followed.
    package func openDirectory(_ name: String) throws(FileSystem.Failure) -> Directory {
        let fd = openat(descriptor, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystem.Failure(operation: "open", path: path(of: name), code: errno) }
        return Directory(descriptor: fd, path: path(of: name))
    }

    /// Creates a subdirectory with exactly `mode` whatever the umask, or opens
    /// the one already there (several writers may race here).
    package func makeDirectory(_ name: String, mode: mode_t = 0o755) throws(FileSystem.Failure) -> Directory {
        let created = mkdirat(descriptor, name, mode) == 0
        guard created || errno == EEXIST else { throw FileSystem.Failure(operation: "mkdir", path: path(of: name), code: errno) }
        let directory = try openDirectory(name)
        if created { try directory.setMode(mode) }
        return directory
    }

    /// `fchmod` on this very directory: the mode cannot land anywhere else.
    package func setMode(_ mode: mode_t) throws(FileSystem.Failure) {
        guard fchmod(descriptor, mode) == 0 else { throw FileSystem.Failure(operation: "chmod", path: path, code: errno) }
    }

    /// Opens an entry that must not be a link; `O_NOFOLLOW` and `O_CLOEXEC` are added.
    /// A read leaves the file's access time as it was (`O_NOATIME`) where the
    /// caller owns the file: under `relatime` the first read after a write,
    /// and one a day after, writes the inode, and the scrub reads every object
    /// and tree file (docs/cache-format.md#scrub). Another user's file
    /// (`EPERM`) is opened as it is.
    package func openFile(_ name: String, _ flags: Int32, mode: mode_t = 0) throws(FileSystem.Failure) -> Int32 {
        let isRead = flags & (O_ACCMODE | O_CREAT) == O_RDONLY
        var fd = isRead ? openat(descriptor, name, flags | assetcache_o_noatime() | O_NOFOLLOW | O_CLOEXEC, mode) : -1
        if fd < 0 && (!isRead || errno == EPERM) { fd = openat(descriptor, name, flags | O_NOFOLLOW | O_CLOEXEC, mode) }
        guard fd >= 0 else { throw FileSystem.Failure(operation: "open", path: path(of: name), code: errno) }
        return fd
    }

    /// A new file with exactly `mode` whatever the umask, open for writing.
    package func createFile(_ name: String, mode: mode_t) throws(FileSystem.Failure) -> Int32 {
        let fd = try openFile(name, O_CREAT | O_EXCL | O_WRONLY, mode: mode)
        guard fchmod(fd, mode) == 0 else {
            let failure = FileSystem.Failure(operation: "chmod", path: path(of: name), code: errno)
            close(fd)
            unlinkat(descriptor, name, 0)
            throw failure
        }
        return fd
    }

    /// The entry itself (a link is reported as a link); nil when absent.
    package func status(_ name: String) -> stat? {
        var info = stat()
        return fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 ? info : nil
    }

    /// What an entry is, in words, for messages.
    package func kind(of name: String) -> String {
        switch status(name).map({ $0.st_mode & S_IFMT }) {
        case nil: "missing entry"
        case S_IFLNK?: "symbolic link"
        case S_IFDIR?: "directory"
        case S_IFREG?: "file"
        default: "special file"
        }
    }

    package func isFile(_ name: String) -> Bool { status(name).map { $0.st_mode & S_IFMT == S_IFREG } ?? false }
    package func isDirectory(_ name: String) -> Bool { status(name).map { $0.st_mode & S_IFMT == S_IFDIR } ?? false }

    /// This directory's own status.
    package func status() -> stat? {
        var info = stat()
        return fstat(descriptor, &info) == 0 ? info : nil
    }

    package func rename(_ name: String, to directory: Directory, as newName: String) throws(FileSystem.Failure) {
        guard renameat(descriptor, name, directory.descriptor, newName) == 0 else {
            throw FileSystem.Failure(operation: "rename", path: "\(path(of: name)) -> \(directory.path(of: newName))", code: errno)
        }
    }

    /// Removes a file, or a link as itself; false when nothing was removed.
    @discardableResult
    package func unlink(_ name: String) -> Bool { unlinkat(descriptor, name, 0) == 0 }

    /// Sets the entry's times to now without following a link.
    package func touch(_ name: String) {
        _ = utimensat(descriptor, name, nil, AT_SYMLINK_NOFOLLOW)
    }

    package func sync() throws(FileSystem.Failure) {
        guard fsync(descriptor) == 0 else { throw FileSystem.Failure(operation: "fsync", path: path, code: errno) }
    }

    /// The names in this directory, but `.` and `..`.
    package func entries() -> [String] {
        // fdopendir takes the descriptor over and reads from its offset: give it
        // one of its own (a dup would share the offset with other readers).
        Self.entries(openat(descriptor, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC))
    }

    /// The names in the subdirectory `name` (none when it is a link or absent).
    package func entries(of name: String) -> [String] {
        Self.entries(openat(descriptor, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC))
    }

    /// Reads a directory stream on `fd`, which it takes over.
    private static func entries(_ fd: Int32) -> [String] {
        guard fd >= 0 else { return [] }
        guard let stream = fdopendir(fd) else {
            close(fd)
            return []
        }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            // Read in place: a dirent is only as long as its name (d_reclen), so
            // copying the whole 256-byte d_name can run off the end of the page.
            let name = String(cString: (UnsafeRawPointer(entry) + nameOffset).assumingMemoryBound(to: CChar.self))
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    private static let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!

    /// A small file read whole, never through a link; nil when it is absent,
    /// unreadable or longer than `limit` (hostile input is not read without end).
    package func contents(of name: String, limit: Int = 1 << 20) -> [UInt8]? {
        guard let fd = try? openFile(name, O_RDONLY | O_NONBLOCK) else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, Int64(info.st_size) <= Int64(limit) else { return nil }
        // The size fstat gave: refs and state are replaced whole, never grown.
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return count == 0 ? Array(bytes[..<filled]) : nil }
            filled += count
        }
        return bytes
    }
}
