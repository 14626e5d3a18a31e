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
    /// The validators and size of what is served: the file's, or its encoding's.
    var info: FileInfo
    /// The bytes served instead of the file's (`gzip=1`).
    var encoded: ByteBuffer?
    /// `digest=`: the header field of the bytes served's digest.
    var digestField: (name: String, value: String)?
}

/// What a route serves in place of its own file.
struct Substitution: Sendable {
    /// `then=`: another file of the root, with its own validators.
    var replacement: String?
    /// `gzip=1`: the gzip encoding of the file.
    var gzip = false
    /// `digest=`: the digest to send of what is served.
    var digest: FileDigest?
}

/// The served folder: maps request paths to files inside it, never outside.
struct RootFolder: Sendable {
    let path: String
    let threadPool: NIOThreadPool
    let gzipCache = GzipCache()

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

    /// Opens and stats off the event loop (both may block on a slow disk), as
    /// does compressing for gzip and hashing for a digest. Succeeds with nil for anything but a
    /// readable regular file.
    func open(_ filePath: String, substitution: Substitution = Substitution(), on loop: any EventLoop) -> EventLoopFuture<OpenedFile?> {
        threadPool.runIfActive(eventLoop: loop) {
            guard var opened = Self.open(filePath) else { return nil }
            if let replacement = substitution.replacement {
                let original = opened.info
                try? opened.handle.close()
                guard let other = Self.open(replacement) else { return nil }
                opened = other
                // Its ETag differs (another inode); its date must too, for an
                // If-Range or If-Modified-Since by date.
                if opened.info.modifiedSeconds <= original.modifiedSeconds {
                    opened.info.modifiedSeconds = original.modifiedSeconds + 1
                }
            }
            if substitution.gzip {
                let encoded = gzipCache.encoding(path: filePath, info: opened.info) {
                    try? opened.handle.withUnsafeFileDescriptor { Gzip.encode(descriptor: $0) }
                }
                if let encoded {
                    opened.encoded = encoded
                    opened.info.size = encoded.readableBytes
                    opened.info.encoding = "gzip"
                }
            }
            if let digest = substitution.digest {
                opened.digestField = try? opened.handle.withUnsafeFileDescriptor { digest.field(descriptor: $0, encoded: opened.encoded) }
            }
            return opened
        }
    }

    private static func open(_ filePath: String) -> OpenedFile? {
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
            modifiedNanoseconds: Int(modified.tv_nsec),
            inode: Int(truncatingIfNeeded: status.st_ino))
        return OpenedFile(handle: handle, info: info)
    }
}
