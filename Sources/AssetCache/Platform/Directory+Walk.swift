#if canImport(Glibc)
import Glibc
#endif

/// Depth-first walks below a directory that hold two descriptors at most, whatever
/// the depth: a walk goes down with `openat(O_NOFOLLOW)` and comes back up through
/// `..`, checked against the device and inode it left, so a directory moved
/// while it is walked stops the walk instead of sending it elsewhere. The names
/// still to visit are kept per level, so nothing is read twice.
extension Directory {
    /// Calls `entry` for everything below this directory that is not a directory
    /// (a link is such an entry: it is never followed), with the directory it is
    /// in; and `leave` for every directory below, after its contents, while it is
    /// still open, with its parent and its name there. `enter` sees each
    /// directory before its entries are read.
    package func walk(
        enter: (Directory) throws(FileSystem.Failure) -> Void = { _ throws(FileSystem.Failure) in },
        entry: (Directory, String, stat) throws(FileSystem.Failure) -> Void,
        leave: (_ directory: Directory, _ parent: Directory, _ name: String) throws(FileSystem.Failure) -> Void
    ) throws(FileSystem.Failure) {
        struct Level {
            var name: String
            var device: dev_t
            var inode: ino_t
            var subdirectories: [String]
        }
        func level(_ directory: Directory, named name: String) throws(FileSystem.Failure) -> Level {
            try enter(directory)
            guard let own = directory.status() else { throw FileSystem.Failure(operation: "stat", path: directory.path, code: errno) }
            var subdirectories: [String] = []
            for child in directory.entries() {
                guard let info = directory.status(child) else { continue }  // gone meanwhile
                if info.st_mode & S_IFMT == S_IFDIR {
                    subdirectories.append(child)
                } else {
                    try entry(directory, child, info)
                }
            }
            return Level(name: name, device: own.st_dev, inode: own.st_ino, subdirectories: subdirectories)
        }

        var levels = [try level(self, named: "")]
        var current = self
        while !levels.isEmpty {
            if let next = levels[levels.count - 1].subdirectories.popLast() {
                let child = try current.openDirectory(next)
                levels.append(try level(child, named: next))
                current = child
                continue
            }
            let done = levels.removeLast()
            guard let above = levels.last else { break }
            let parent: Directory
            if levels.count == 1 {
                parent = self
            } else {
                parent = try current.openDirectory("..")
                guard let info = parent.status(), info.st_dev == above.device, info.st_ino == above.inode else {
                    throw FileSystem.Failure(operation: "walk back up from", path: current.path, code: ESTALE)
                }
            }
            try leave(current, parent, done.name)
            current = parent
        }
    }

    /// Removes an entry whatever it is: a file or a link as itself, a directory
    /// with everything below it, at any depth. Read-only directories are made
    /// writable first (on the descriptor). Absent is fine.
    package func remove(_ name: String) throws(FileSystem.Failure) {
        guard let info = status(name) else { return }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            guard unlinkat(descriptor, name, 0) == 0 || errno == ENOENT else {
                throw FileSystem.Failure(operation: "unlink", path: path(of: name), code: errno)
            }
            return
        }
        let top = try openDirectory(name)
        try top.walk(
            enter: { directory throws(FileSystem.Failure) in
                if let own = directory.status(), own.st_mode & 0o700 != 0o700 { try directory.setMode(0o755) }
            },
            entry: { directory, child, _ throws(FileSystem.Failure) in
                guard unlinkat(directory.descriptor, child, 0) == 0 || errno == ENOENT else {
                    throw FileSystem.Failure(operation: "unlink", path: directory.path(of: child), code: errno)
                }
            },
            leave: { _, parent, child throws(FileSystem.Failure) in
                try parent.removeEmptyDirectory(child)
            })
        try removeEmptyDirectory(name)
    }

    /// rmdir(2): a directory that is not empty (or a link, or a file) stays.
    package func removeEmptyDirectory(_ name: String) throws(FileSystem.Failure) {
        guard unlinkat(descriptor, name, AT_REMOVEDIR) == 0 || errno == ENOENT else {
            throw FileSystem.Failure(operation: "rmdir", path: path(of: name), code: errno)
        }
    }

    /// Bytes of the regular files below this directory.
    package func treeSize() -> Int64 {
        var total: Int64 = 0
        try? walk(entry: { _, _, info in
            if info.st_mode & S_IFMT == S_IFREG { total += Int64(info.st_size) }
        }, leave: { _, _, _ in })
        return total
    }

    /// Every file and directory below this one is flushed, then this directory:
    /// a tree renamed into place after this survives power loss whole. `synced`
    /// hears of each flush: the path, and whether it was a directory's.
    package func syncTree(synced: (String, Bool) -> Void = { _, _ in }) throws(FileSystem.Failure) {
        try walk(
            entry: { directory, name, info throws(FileSystem.Failure) in
                guard info.st_mode & S_IFMT == S_IFREG else { return }
                let fd = try directory.openFile(name, O_RDONLY)
                defer { close(fd) }
                guard fsync(fd) == 0 else { throw FileSystem.Failure(operation: "fsync", path: directory.path(of: name), code: errno) }
                synced(directory.path(of: name), false)
            },
            leave: { directory, _, _ throws(FileSystem.Failure) in
                try directory.sync()
                synced(directory.path, true)
            })
        try sync()
        synced(path, true)
    }
}
