import NIOCore

/// The gzip encodings made for `gzip=1`, by file path and version (its
/// ETag), so that the requests of one test compress a file once.
final class GzipCache: Sendable {
    /// A few versions of a few files are all a test serves.
    private static let capacity = 16
    private let encodings = Locked<[String: ByteBuffer]>([:])

    /// The cached encoding, or `make()`'s (made outside the lock), kept.
    func encoding(path: String, info: FileInfo, make: () -> ByteBuffer?) -> ByteBuffer? {
        let key = path + "\n" + info.etag
        if let cached = encodings.withLock({ $0[key] }) { return cached }
        guard let made = make() else { return nil }
        encodings.withLock { encodings in
            if encodings.count >= Self.capacity { encodings.removeAll() }
            encodings[key] = made
        }
        return made
    }
}
