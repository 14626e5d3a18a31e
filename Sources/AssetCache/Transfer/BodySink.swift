import Crypto

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The body of one response on its way to disk: written straight through with
/// write(2) and hashed in the same pass, so memory stays flat whatever the size
/// and nothing has to read the file back to hash it.
struct BodySink {
    let path: String
    private var descriptor: Int32 = -1
    private(set) var bytes: Int64 = 0
    private var hasher = SHA256()

    init(path: String) {
        self.path = path
    }

    /// The file is opened on the first byte, not before: a response that turns out
    /// to be an error, or a retry that starts over, must not leave stale bytes.
    mutating func append(_ buffer: UnsafeRawBufferPointer) -> AssetFailure? {
        if let failure = openIfNeeded() { return failure }
        var offset = 0
        while offset < buffer.count {
            let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return Self.storageFailure("could not write", path, errno)
            }
            offset += written
        }
        hasher.update(bufferPointer: buffer)
        bytes += Int64(buffer.count)
        return nil
    }

    /// A successful response with an empty body still has to leave an empty file,
    /// not whatever an earlier attempt wrote.
    mutating func openIfNeeded() -> AssetFailure? {
        guard descriptor < 0 else { return nil }
        let fd = open(path, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0o600)
        if fd < 0 { return Self.storageFailure("could not create", path, errno) }
        descriptor = fd
        return nil
    }

    /// Before a retry: the next response replaces this one's bytes entirely.
    mutating func startOver() {
        if descriptor >= 0 {
            _ = ftruncate(descriptor, 0)
        }
        closeFile()
        bytes = 0
        hasher = SHA256()
    }

    mutating func closeFile() {
        if descriptor >= 0 {
            _ = close(descriptor)
            descriptor = -1
        }
    }

    var sha256Hex: String {
        let hexDigits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(64)
        for byte in hasher.finalize() {
            text.append(hexDigits[Int(byte >> 4)])
            text.append(hexDigits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static func storageFailure(_ what: String, _ path: String, _ code: Int32) -> AssetFailure {
        AssetFailure(.storage, "\(what) \(path): \(String(cString: strerror(code))) (errno \(code))")
    }
}
