#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore

/// Hands a body out in chunks, so that the handler can pace, cut or stall it
/// and count the bytes that reached the socket.
final class BodyStream {
    private static let zeros = ByteBuffer(repeating: 0, count: 64 * 1024)
    // Each chunk waits for the previous one to be written, so this bounds
    // the memory and socket buffer one response can hold.
    private static let fileChunk = 256 * 1024

    private let source: BodySource
    /// File bytes are copied into buffers instead of sent as file regions:
    /// TLS must encrypt them, and sendfile(2) would bypass it.
    private let copiesFiles: Bool
    /// Bytes to send in all (the body, or less when cut); nil for ever.
    let length: Int?
    let startedAt = NIODeadline.now()
    private(set) var sent = 0

    init(source: BodySource, cut: BodyCut?, copiesFiles: Bool) {
        self.source = source
        self.copiesFiles = copiesFiles
        switch (source.length, cut?.bytes) {
        case let (body?, cut?): length = min(body, cut)
        case let (body, nil): length = body
        case let (nil, cut): length = cut
        }
    }

    var remaining: Int? { length.map { $0 - sent } }

    var maxChunk: Int {
        if case .endless = source { Self.zeros.readableBytes } else { Self.fileChunk }
    }

    /// The next `size` bytes after those sent; `size` must not exceed
    /// `remaining` nor `maxChunk`.
    func chunk(size: Int) -> IOData {
        switch source {
        case .none:
            return .byteBuffer(ByteBuffer())
        case .bytes(let buffer):
            return .byteBuffer(buffer.getSlice(at: buffer.readerIndex + sent, length: size)!)
        case .file(let handle, let range):
            let start = range.lowerBound + sent
            guard copiesFiles else {
                return .fileRegion(FileRegion(fileHandle: handle, readerIndex: start, endIndex: start + size))
            }
            // A short read (the file shrank) sends less, which the client sees as a cut body.
            var buffer = ByteBufferAllocator().buffer(capacity: size)
            _ = try? handle.withUnsafeFileDescriptor { descriptor in
                buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: size) { bytes in
                    max(0, pread(descriptor, bytes.baseAddress, size, off_t(start)))
                }
            }
            return .byteBuffer(buffer)
        case .endless:
            return .byteBuffer(Self.zeros.getSlice(at: 0, length: size)!)
        }
    }

    func didSend(_ size: Int) {
        sent += size
    }

    func close() {
        source.close()
    }
}
