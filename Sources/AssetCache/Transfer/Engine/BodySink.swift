import Crypto

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The body on its way to disk: written straight through with write(2) and
/// hashed in the same pass, so memory stays flat whatever the size and nothing
/// has to read the file back to hash it — except a prefix left by an earlier,
/// interrupted transfer, which is read once when a 206 continues it (SHA-256
/// state cannot be saved).
///
/// The file is open only while one response's body is arriving: each attempt
/// ends with it closed, so whatever an attempt wrote is in the file, not in a
/// buffer, when it fails or is cancelled.
struct BodySink {
    static let emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    /// Reading a prefix back: small, so a resume costs no memory to speak of.
    private static let prefixBufferSize = 64 * 1024

    let location: FileLocation
    var path: String { location.path }
    private var descriptor: Int32 = -1
    /// Body bytes in the file at `path`.
    private(set) var bytes: Int64
    /// False while an inherited prefix has not been read back into `hasher`.
    private(set) var isHashed: Bool
    private var hasher = SHA256()

    /// `prefix`: body bytes already at the start of the file, not yet hashed.
    init(location: FileLocation, prefix: Int64 = 0) {
        self.location = location
        bytes = prefix
        isHashed = prefix == 0
    }

    /// For a response that carries the body from its first byte. The file is
    /// created on the first byte, not before: a response that turns out to be an
    /// error must not leave stale bytes.
    mutating func startFresh() -> AssetFailure? {
        closeFile()
        let fd: Int32
        do throws(FileSystem.Failure) {
            fd = try location.directory.openFile(location.name, O_CREAT | O_TRUNC | O_WRONLY, mode: 0o600)
        } catch {
            return Self.storageFailure("could not create", path, error.code)
        }
        descriptor = fd
        bytes = 0
        isHashed = true
        hasher = SHA256()
        return nil
    }

    /// For a 206 that continues the body at `bytes`: reads the prefix into the
    /// hash if that has not happened yet, drops anything past it, and appends.
    mutating func continueAppending() -> AssetFailure? {
        closeFile()
        let fd: Int32
        do throws(FileSystem.Failure) {
            fd = try location.directory.openFile(location.name, isHashed ? O_WRONLY : O_RDWR)
        } catch {
            return Self.storageFailure("could not open", path, error.code)
        }
        descriptor = fd
        if !isHashed, let failure = hashPrefix() {
            closeFile()
            return failure
        }
        if ftruncate(fd, off_t(bytes)) != 0 || lseek(fd, off_t(bytes), SEEK_SET) < 0 {
            let code = errno
            closeFile()
            return Self.storageFailure("could not position", path, code)
        }
        return nil
    }

    mutating func append(_ buffer: UnsafeRawBufferPointer) -> AssetFailure? {
        guard descriptor >= 0 else {
            return AssetFailure(.storage, "body bytes arrived for \(path) before it was opened")
        }
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

    /// Before a request that fetches the body from its first byte again: the
    /// file is emptied now, so that a failure before the next body byte does not
    /// leave bytes the result no longer accounts for.
    mutating func discard() {
        closeFile()
        if bytes > 0, let fd = try? location.directory.openFile(location.name, O_WRONLY | O_TRUNC) {
            close(fd)
        }
        bytes = 0
        isHashed = true
        hasher = SHA256()
    }

    mutating func closeFile() {
        if descriptor >= 0 {
            _ = close(descriptor)
            descriptor = -1
        }
    }

    /// nil while an inherited prefix has not been hashed.
    var sha256Hex: String? {
        guard isHashed else { return nil }
        let hexDigits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(64)
        for byte in hasher.finalize() {
            text.append(hexDigits[Int(byte >> 4)])
            text.append(hexDigits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Streams the first `bytes` bytes of the open file through a fresh hasher.
    private mutating func hashPrefix() -> AssetFailure? {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.prefixBufferSize, alignment: 16)
        defer { buffer.deallocate() }
        var prefixHasher = SHA256()
        var offset: Int64 = 0
        while offset < bytes {
            let wanted = Int(min(Int64(buffer.count), bytes - offset))
            let read = pread(descriptor, buffer.baseAddress, wanted, off_t(offset))
            if read < 0 {
                if errno == EINTR { continue }
                return Self.storageFailure("could not read back", path, errno)
            }
            if read == 0 {
                return AssetFailure(.storage, "\(path) holds \(offset) bytes, fewer than the \(bytes) to resume from")
            }
            prefixHasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[..<read]))
            offset += Int64(read)
        }
        hasher = prefixHasher
        isHashed = true
        return nil
    }

    private static func storageFailure(_ what: String, _ path: String, _ code: Int32) -> AssetFailure {
        AssetFailure.storage(what, path, code: code)
    }
}
