#if canImport(Glibc)
import Glibc
#endif

/// A file or directory named inside an open directory. Whatever the path comes
/// to point at later (a `tmp` swapped for a link while a download runs), the
/// name is resolved from the descriptor, so it always means the entry the store
/// made.
package struct FileLocation: Sendable {
    package let directory: Directory
    package let name: String

    package init(_ directory: Directory, _ name: String) {
        self.directory = directory
        self.name = name
    }

    /// A path named from the working directory, for tools and tests.
    package init(path: String) {
        self.init(.workingDirectory, path)
    }

    /// For messages and for readers that only take a path.
    package var path: String { directory.path(of: name) }

    /// Calls `body` with a path that means this very file however the names
    /// above it change meanwhile — `/proc/self/fd/N` of a descriptor opened here
    /// without following links — for readers that only take a path (libpng,
    /// libzip). nil when the file cannot be opened.
    package func withStablePath<T>(_ body: (String) -> T) -> T? {
        guard let fd = try? directory.openFile(name, O_RDONLY) else { return nil }
        defer { close(fd) }
        // Without /proc (never on Linux devices, but a chroot may lack it) the
        // path is still resolved from a directory the store has checked.
        return body(LibC.hasProcFD ? "/proc/self/fd/\(fd)" : path)
    }
}
