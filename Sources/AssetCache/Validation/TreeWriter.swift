#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Creates an unpacked tree strictly below one new directory: every path is walked
/// with `openat` and `O_NOFOLLOW` from the root's descriptor, so nothing in the tree
/// (not even a symlink raced in by someone else) can redirect a write outside it.
final class TreeWriter {
    private let root: Int32
    private let rootPath: String

    /// Makes `directory`, which must not exist yet.
    init(creating directory: String) throws(AssetFailure) {
        guard mkdir(directory, 0o755) == 0 else { throw TreeWriter.storage("cannot create '\(directory)'") }
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw TreeWriter.storage("cannot open '\(directory)'") }
        root = fd
        rootPath = directory
    }

    deinit { close(root) }

    func makeDirectory(_ components: [String]) throws(AssetFailure) {
        let fd = try openDirectory(components[...])
        if fd != root { close(fd) }
    }

    /// A new file, opened for writing; its parents are created as needed.
    func createFile(_ components: [String]) throws(AssetFailure) -> OutputFile {
        let parent = try openDirectory(components.dropLast())
        defer { if parent != root { close(parent) } }
        let fd = openat(parent, components[components.count - 1], O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw TreeWriter.failure(creating: components) }
        return OutputFile(descriptor: fd, path: rootPath + "/" + components.joined(separator: "/"))
    }

    /// The descriptor of the directory at `components`, created as needed; the caller
    /// closes it unless it is `root`.
    private func openDirectory(_ components: ArraySlice<String>) throws(AssetFailure) -> Int32 {
        var current = root
        for (depth, component) in components.enumerated() {
            if mkdirat(current, component, 0o755) != 0, errno != EEXIST {
                let failure = TreeWriter.failure(creating: Array(components.prefix(depth + 1)))
                if current != root { close(current) }
                throw failure
            }
            let next = openat(current, component, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            let failure = next < 0 ? TreeWriter.failure(creating: Array(components.prefix(depth + 1))) : nil
            if current != root { close(current) }
            if let failure { throw failure }
            current = next
        }
        return current
    }

    /// A name that already exists, or is not a directory where one is needed, means
    /// the checks let a clash through: treat it as the archive's fault, not the disk's.
    private static func failure(creating components: [String]) -> AssetFailure {
        let path = components.joined(separator: "/")
        switch errno {
        case EEXIST, ENOTDIR, ELOOP:
            return AssetFailure(.unsafeArchive, "entry '\(path)' clashes with another entry")
        default:
            return storage("cannot create '\(path)'")
        }
    }

    static func storage(_ what: String) -> AssetFailure {
        AssetFailure(.storage, "\(what): \(String(cString: strerror(errno)))")
    }
}

/// A file being written by `TreeWriter`; closed when dropped.
final class OutputFile {
    private let descriptor: Int32
    let path: String

    init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit { close(descriptor) }

    func write(_ bytes: UnsafeRawBufferPointer) throws(AssetFailure) {
        var rest = bytes
        while !rest.isEmpty {
            let count = writeDescriptor(descriptor, rest.baseAddress, rest.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw TreeWriter.storage("cannot write '\(path)'")
            }
            rest = UnsafeRawBufferPointer(rebasing: rest[count...])
        }
    }
}

// At file scope, where `OutputFile.write` does not shadow the system call.
private func writeDescriptor(_ descriptor: Int32, _ address: UnsafeRawPointer?, _ count: Int) -> Int {
    write(descriptor, address, count)
}
