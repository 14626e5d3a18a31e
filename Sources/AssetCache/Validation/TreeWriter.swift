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
/// Directories get mode 0755 and files 0644 whatever the umask, so that an app
/// running as another user can read them.
final class TreeWriter {
    private let root: Directory

    /// Makes `location`, which must not exist yet.
    init(creating location: FileLocation) throws(AssetFailure) {
        guard mkdirat(location.directory.descriptor, location.name, 0o755) == 0 else {
            throw TreeWriter.storage("cannot create '\(location.path)'")
        }
        do throws(FileSystem.Failure) {
            root = try location.directory.openDirectory(location.name)
            try root.setMode(0o755)
        } catch {
            throw AssetFailure(.storage, "cannot open \(error)")
        }
    }

    func makeDirectory(_ components: [String]) throws(AssetFailure) {
        _ = try openDirectory(components[...])
    }

    /// A new file, opened for writing; its parents are created as needed.
    func createFile(_ components: [String]) throws(AssetFailure) -> OutputFile {
        let parent = try openDirectory(components.dropLast())
        do throws(FileSystem.Failure) {
            let fd = try parent.createFile(components[components.count - 1], mode: 0o644)
            return OutputFile(descriptor: fd, path: root.path(of: components.joined(separator: "/")))
        } catch {
            throw TreeWriter.failure(creating: components, code: error.code)
        }
    }

    /// Links `file` of the previous tree at `components`, its parents created
    /// as needed; false when the file system refused (the caller writes it).
    func link(_ components: [String], to file: ReusableFile) throws(AssetFailure) -> Bool {
        file.link(into: try openDirectory(components.dropLast()), as: components[components.count - 1])
    }

    /// The directory at `components`, created as needed. Only the directory in
    /// hand is open, whatever the depth.
    private func openDirectory(_ components: ArraySlice<String>) throws(AssetFailure) -> Directory {
        var current = root
        for (depth, component) in components.enumerated() {
            do throws(FileSystem.Failure) {
                current = try current.makeDirectory(component)
            } catch {
                throw TreeWriter.failure(creating: Array(components.prefix(depth + 1)), code: error.code)
            }
        }
        return current
    }

    /// A name that already exists, or is not a directory where one is needed, means
    /// the checks let a clash through: treat it as the archive's fault, not the disk's.
    private static func failure(creating components: [String], code: Int32) -> AssetFailure {
        let path = components.joined(separator: "/")
        switch code {
        case EEXIST, ENOTDIR, ELOOP:
            return AssetFailure(.unsafeArchive, "entry '\(path)' clashes with another entry")
        default:
            var failure = AssetFailure(.storage, "cannot create '\(path)': \(String(cString: strerror(code)))")
            failure.lacksSpace = FileSystemSpace.isFull(code)
            return failure
        }
    }

    /// A full file system is said so (``AssetFailure/lacksSpace``): the asset waits for room.
    static func storage(_ what: String) -> AssetFailure {
        let code = errno
        var failure = AssetFailure(.storage, "\(what): \(String(cString: strerror(code)))")
        failure.lacksSpace = FileSystemSpace.isFull(code)
        return failure
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
