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
    private let pieces: [BodyPiece]
    /// File bytes are copied into buffers instead of sent as file regions:
    /// TLS must encrypt them, and sendfile(2) would bypass it.
    private let copiesFiles: Bool
    /// Bytes to send in all (the body, or less when cut); nil for ever.
    let length: Int?
    let startedAt = NIODeadline.now()
    private(set) var sent = 0
    /// Where the next byte comes from: a piece, and how much of it was sent.
    private var piece = 0
    private var sentOfPiece = 0

    init(source: BodySource, cut: BodyCut?, copiesFiles: Bool) {
        self.source = source
        self.pieces = source.pieces.filter { $0.length != 0 }
        self.copiesFiles = copiesFiles
        switch (source.length, cut?.bytes) {
        case let (body?, cut?): length = min(body, cut)
        case let (body, nil): length = body
        case let (nil, cut): length = cut
        }
    }

    var remaining: Int? { length.map { $0 - sent } }

    /// The most the next chunk may hold: chunks never span two pieces.
    var maxChunk: Int {
        guard piece < pieces.count else { return 0 }
        switch pieces[piece] {
        case .endless: return Self.zeros.readableBytes
        case let other: return min(Self.fileChunk, other.length! - sentOfPiece)
        }
    }

    /// The next `size` bytes after those sent; `size` must not exceed
    /// `remaining` nor `maxChunk`.
    func chunk(size: Int) -> IOData {
        guard size > 0 else { return .byteBuffer(ByteBuffer()) }
        switch pieces[piece] {
        case .bytes(let buffer):
            return .byteBuffer(buffer.getSlice(at: buffer.readerIndex + sentOfPiece, length: size)!)
        case .content(let range):
            return contentChunk(at: range.lowerBound + sentOfPiece, size: size)
        case .endless:
            return .byteBuffer(Self.zeros.getSlice(at: 0, length: size)!)
        }
    }

    private func contentChunk(at start: Int, size: Int) -> IOData {
        switch source.content {
        case .buffer(let buffer)?:
            return .byteBuffer(buffer.getSlice(at: buffer.readerIndex + start, length: size)!)
        case .file(let handle)?:
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
        case nil:
            return .byteBuffer(ByteBuffer())
        }
    }

    func didSend(_ size: Int) {
        sent += size
        sentOfPiece += size
        if piece < pieces.count, sentOfPiece == pieces[piece].length {
            piece += 1
            sentOfPiece = 0
        }
    }

    func close() {
        source.close()
    }
}
