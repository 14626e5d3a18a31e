import Glibc

/// The few POSIX calls the store's durability rests on, with errors that name the
/// path. Kept apart so that each commit step reads as one line in ``CacheStore``.
enum FileSystem {
    struct Failure: Error, CustomStringConvertible {
        var operation: String
        var path: String
        var code: Int32
        var description: String { "\(operation) \(path): \(String(cString: strerror(code)))" }
    }

    static func fsync(path: String, directory: Bool = false) throws(Failure) {
        let fd = open(path, (directory ? O_DIRECTORY : 0) | O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(operation: "open", path: path, code: errno) }
        defer { close(fd) }
        guard Glibc.fsync(fd) == 0 else { throw Failure(operation: "fsync", path: path, code: errno) }
    }

    static func rename(_ from: String, to: String) throws(Failure) {
        guard Glibc.rename(from, to) == 0 else { throw Failure(operation: "rename", path: "\(from) -> \(to)", code: errno) }
    }

    /// Creates a directory; one that exists already is fine (several writers may race here).
    static func makeDirectory(_ path: String, mode: mode_t = 0o755) throws(Failure) {
        guard mkdir(path, mode) == 0 || errno == EEXIST else { throw Failure(operation: "mkdir", path: path, code: errno) }
    }

    /// `mkdir -p`: the missing ancestors too.
    static func makeDirectories(_ path: String, mode: mode_t = 0o755) throws(Failure) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += component
            try makeDirectory(prefix, mode: mode)
            prefix += "/"
        }
    }

    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    static func size(_ path: String) -> Int64? {
        var info = stat()
        return lstat(path, &info) == 0 ? Int64(info.st_size) : nil
    }

    static func chmod(_ path: String, _ mode: mode_t) throws(Failure) {
        guard Glibc.chmod(path, mode) == 0 else { throw Failure(operation: "chmod", path: path, code: errno) }
    }

    static func entries(_ path: String) -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            // Read in place: a dirent is only as long as its name (d_reclen), so
            // copying the whole 256-byte d_name can run off the end of the page.
            let name = String(cString: (UnsafeRawPointer(entry) + direntNameOffset).assumingMemoryBound(to: CChar.self))
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    private static let direntNameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!

    /// Removes a file or a whole tree, making read-only objects writable first.
    static func remove(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            _ = Glibc.chmod(path, 0o755)
            for name in entries(path) { remove("\(path)/\(name)") }
            rmdir(path)
        } else {
            unlink(path)
        }
    }

    /// Writes a small file whole (refs, state): temp file, fsync, rename, fsync dir.
    static func writeAtomically(_ bytes: [UInt8], to path: String, tempDirectory: String) throws(Failure) {
        let temp = try writeTemporary(bytes, in: tempDirectory)
        try rename(temp, to: path)
        try fsync(path: parent(of: path), directory: true)
    }

    /// A new file in `tempDirectory` holding `bytes`, synced.
    static func writeTemporary(_ bytes: [UInt8], in tempDirectory: String) throws(Failure) -> String {
        let temp = "\(tempDirectory)/.\(UInt64.random(in: 0...UInt64.max)).tmp"
        let fd = open(temp, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Failure(operation: "create", path: temp, code: errno) }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, bytes.count - written) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                let code = errno
                close(fd); unlink(temp)
                throw Failure(operation: "write", path: temp, code: code)
            }
            written += n
        }
        if Glibc.fsync(fd) != 0 {
            let code = errno
            close(fd); unlink(temp)
            throw Failure(operation: "fsync", path: temp, code: code)
        }
        close(fd)
        return temp
    }


    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}

extension FileSystem {
    static func lastComponent(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }
}
