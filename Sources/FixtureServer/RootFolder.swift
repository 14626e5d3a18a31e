#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore
import NIOPosix

/// A regular file opened for serving. Whoever holds it must close `handle`.
struct OpenedFile: Sendable {
    var handle: NIOFileHandle
    var info: FileInfo
}

/// The served folder: maps request paths to files inside it, never outside.
struct RootFolder: Sendable {
    let path: String
    let threadPool: NIOThreadPool

    /// The file for a decoded request path, or nil when the path would leave
    /// the root or names the root itself.
    func filePath(for requestPath: String) -> String? {
        var components: [Substring] = []
        for component in requestPath.split(separator: "/") where component != "." {
            guard component != "..", !component.contains("\0") else { return nil }
            components.append(component)
        }
        guard !components.isEmpty else { return nil }
        return path + "/" + components.joined(separator: "/")
    }

    /// Opens and stats off the event loop (both may block on a slow disk).
    /// Succeeds with nil for anything but a readable regular file.
    func open(_ filePath: String, on loop: any EventLoop) -> EventLoopFuture<OpenedFile?> {
        threadPool.runIfActive(eventLoop: loop) {
            // O_NONBLOCK so that a FIFO in the folder cannot hang a pool thread.
            guard let handle = try? NIOFileHandle(
                _deprecatedPath: filePath, mode: .read,
                flags: .posix(flags: O_NONBLOCK, mode: 0))
            else { return nil }
            var status = stat()
            let result = try? handle.withUnsafeFileDescriptor { fstat($0, &status) }
            guard result == 0, status.st_mode & S_IFMT == S_IFREG else {
                try? handle.close()
                return nil
            }
            #if canImport(Darwin)
            let modified = status.st_mtimespec
            #else
            let modified = status.st_mtim
            #endif
            let info = FileInfo(
                size: Int(status.st_size),
                modifiedSeconds: Int(modified.tv_sec),
                modifiedNanoseconds: Int(modified.tv_nsec))
            return OpenedFile(handle: handle, info: info)
        }
    }
}
