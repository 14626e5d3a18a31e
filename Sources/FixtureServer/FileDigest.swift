#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Crypto
import NIOCore

/// `digest=`: a digest of the whole file sent with its `200` and `206`
/// answers, as a server that proves its bytes does (issue 37): RFC 9530's
/// `Repr-Digest` (of the representation, so the same for every range), or
/// Google Cloud Storage's `x-goog-hash` (the object's CRC-32C and MD5, also
/// with ranged reads). `wrong` is a `Repr-Digest` of other bytes: a server
/// whose digest is not of its file.
enum FileDigest: String, Equatable, CaseIterable, Sendable {
    case sha256 = "sha-256"
    case sha512 = "sha-512"
    case googHash = "x-goog-hash"
    case wrong

    private static let step = 64 * 1024

    /// The header field for the bytes served: `encoded` when there is one
    /// (`gzip=1`: the representation is the encoding), else the file behind
    /// `descriptor`; nil when it cannot be read.
    func field(descriptor: Int32, encoded: ByteBuffer?) -> (name: String, value: String)? {
        var sha256 = SHA256(), sha512 = SHA512(), md5 = Insecure.MD5(), crc32c = CRC32C()
        let consume = { (bytes: UnsafeRawBufferPointer) in
            switch self {
            case .sha256, .wrong: sha256.update(bufferPointer: bytes)
            case .sha512: sha512.update(bufferPointer: bytes)
            case .googHash:
                md5.update(bufferPointer: bytes)
                crc32c.update(bytes)
            }
        }
        if let encoded {
            encoded.withUnsafeReadableBytes(consume)
        } else if !Self.read(descriptor, consume) {
            return nil
        }
        func base64<D: Sequence<UInt8>>(_ digest: D) -> String { Base64.encode(Array(digest)) }
        switch self {
        case .sha256: return ("Repr-Digest", "sha-256=:\(base64(sha256.finalize())):")
        case .sha512: return ("Repr-Digest", "sha-512=:\(base64(sha512.finalize())):")
        case .wrong: return ("Repr-Digest", "sha-256=:\(base64(sha256.finalize().map { $0 ^ 0xFF })):")
        case .googHash: return ("x-goog-hash", "crc32c=\(base64(crc32c.bigEndianBytes)),md5=\(base64(md5.finalize()))")
        }
    }

    /// The file from its start, a buffer at a time; false when a read fails.
    private static func read(_ descriptor: Int32, _ consume: (UnsafeRawBufferPointer) -> Void) -> Bool {
        var buffer = [UInt8](repeating: 0, count: step)
        var offset = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(offset)) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return false }
            if count == 0 { return true }
            buffer.withUnsafeBytes { consume(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            offset += count
        }
    }
}

/// CRC-32C (Castagnoli, RFC 3720 §B.4), the checksum Cloud Storage sends
/// beside the MD5: bit by bit, as test files are small.
struct CRC32C {
    private var value: UInt32 = 0xFFFF_FFFF

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        for byte in bytes {
            value ^= UInt32(byte)
            for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ 0x82F6_3B78 : value >> 1 }
        }
    }

    /// Big-endian, as `x-goog-hash` encodes it.
    var bigEndianBytes: [UInt8] {
        let final = ~value
        return [UInt8(final >> 24), UInt8((final >> 16) & 0xFF), UInt8((final >> 8) & 0xFF), UInt8(final & 0xFF)]
    }
}

/// RFC 4648 base64, with padding.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        for start in stride(from: 0, to: bytes.count, by: 3) {
            let chunk = bytes[start..<min(start + 3, bytes.count)]
            let value = chunk.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (16 - 8 * UInt32($1.offset)) }
            for index in 0..<4 {
                out.append(index <= chunk.count ? alphabet[Int((value >> (18 - 6 * UInt32(index))) & 63)] : UInt8(ascii: "="))
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
