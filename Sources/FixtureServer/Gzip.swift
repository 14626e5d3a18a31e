#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import CZlib
import NIOCore

/// `gzip=1`: the file's gzip encoding (RFC 9110 §8.4.1.3), made whole in
/// memory once per file version (``GzipCache``), so that ranges of it can be
/// cut as of any other content. Test files are a few MB.
enum Gzip {
    private static let step = 64 * 1024

    /// The gzip of the file behind `descriptor`, read from its start; nil when
    /// reading fails.
    static func encode(descriptor: Int32) -> ByteBuffer? {
        var stream = z_stream()
        // 15 + 16: a 32 KiB window, with the gzip header and trailer.
        guard deflateInit2_(
            &stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY,
            zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK
        else { return nil }
        defer { deflateEnd(&stream) }
        var output = ByteBuffer()
        var input = [UInt8](repeating: 0, count: step)
        var offset = 0
        while true {
            let count = input.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(offset)) }
            guard count >= 0 else { return nil }
            offset += count
            let flush = count == 0 ? Z_FINISH : Z_NO_FLUSH
            var status = Z_OK
            input.withUnsafeMutableBytes { bytes in
                stream.next_in = bytes.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.avail_in = uInt(count)
                repeat {
                    output.writeWithUnsafeMutableBytes(minimumWritableBytes: step) { out in
                        stream.next_out = out.baseAddress!.assumingMemoryBound(to: Bytef.self)
                        stream.avail_out = uInt(out.count)
                        status = deflate(&stream, flush)
                        return out.count - Int(stream.avail_out)
                    }
                } while stream.avail_out == 0 && status == Z_OK
            }
            if count == 0 { return status == Z_STREAM_END ? output : nil }
            guard status == Z_OK || status == Z_BUF_ERROR else { return nil }
        }
    }

    /// RFC 9110 §12.5.3: no Accept-Encoding accepts any coding; otherwise
    /// gzip (or `*`) must be listed without `q=0`.
    static func isAccepted(by acceptEncoding: String?) -> Bool {
        guard let acceptEncoding else { return true }
        for member in acceptEncoding.split(separator: ",") {
            let parameters = member.split(separator: ";").map { $0.trimmingWhitespace.lowercased() }
            guard parameters.first == "gzip" || parameters.first == "x-gzip" || parameters.first == "*" else { continue }
            let refused = parameters.dropFirst().contains { $0.hasPrefix("q=") && (Double($0.dropFirst(2)) ?? 1) == 0 }
            if !refused { return true }
        }
        return false
    }
}
