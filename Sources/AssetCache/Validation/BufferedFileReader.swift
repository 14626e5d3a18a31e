#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A forward-only reader over a small fixed buffer, so structure checks can walk
/// files as large as the asset size limit without holding them in memory.
final class BufferedFileReader {
    private let descriptor: Int32
    private var buffer: [UInt8]
    private var start = 0
    private var end = 0
    /// Offset in the file of `buffer[start]`: how far the parser has consumed.
    private(set) var offset: Int64 = 0
    let fileSize: Int64

    init(path: String, bufferSize: Int = 16 * 1024) throws(StructureError) {
        switch ReadOnlyFile.open(path) {
        case .success(let file):
            descriptor = file.descriptor
            fileSize = file.size
        case .failure(let error):
            throw .unreadable(error.message)
        }
        buffer = [UInt8](repeating: 0, count: bufferSize)
    }

    deinit { close(descriptor) }

    var remaining: Int64 { fileSize - offset }

    func readByte() throws(StructureError) -> UInt8 {
        if start == end { try refill() }
        let byte = buffer[start]
        start += 1
        offset += 1
        return byte
    }

    /// Reads `count` bytes; meant for headers, never for image data.
    func readBytes(_ count: Int) throws(StructureError) -> [UInt8] {
        guard Int64(count) <= remaining else { throw truncated(needing: Int64(count)) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        while bytes.count < count {
            if start == end { try refill() }
            let take = min(count - bytes.count, end - start)
            bytes.append(contentsOf: buffer[start..<(start + take)])
            start += take
            offset += Int64(take)
        }
        return bytes
    }

    func skip(_ count: Int64) throws(StructureError) {
        guard count <= remaining else { throw truncated(needing: count) }
        let buffered = Int64(end - start)
        if count <= buffered {
            start += Int(count)
        } else {
            let target = offset + count
            guard lseek(descriptor, off_t(target), SEEK_SET) == off_t(target) else {
                throw .unreadable("seek failed: \(String(cString: strerror(errno)))")
            }
            start = 0
            end = 0
        }
        offset += count
    }

    func readUInt16LittleEndian() throws(StructureError) -> UInt16 {
        let bytes = try readBytes(2)
        return UInt16(bytes[1]) << 8 | UInt16(bytes[0])
    }

    func readUInt32LittleEndian() throws(StructureError) -> UInt32 {
        let bytes = try readBytes(4)
        return bytes.reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    private func refill() throws(StructureError) {
        while true {
            let count = buffer.withUnsafeMutableBytes { readDescriptor(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                start = 0
                end = count
                return
            }
            if count == 0 { throw truncated(needing: 1) }
            if errno != EINTR { throw .unreadable("read failed: \(String(cString: strerror(errno)))") }
        }
    }

    private func truncated(needing count: Int64) -> StructureError {
        .malformed("file is truncated: needs \(offset + count) bytes, has \(fileSize)")
    }
}

// At file scope, where the member names above do not shadow the system call.
private func readDescriptor(_ descriptor: Int32, _ address: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, address, count)
}
