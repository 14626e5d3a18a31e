#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The two-line files of OpenBSD's signify: `untrusted comment: …`, then the
/// base64 of "Ed" (Ed25519), an 8-byte key number and the key or signature.
/// Read as strictly as signify writes them, since a `.sig` comes from a server.
enum SignifyFile {
    /// Both files are two short lines; anything much longer is not one.
    static let maxSize = 4096
    private static let commentPrefix = Array("untrusted comment: ".utf8)
    /// signify's own limit on the comment.
    private static let maxCommentLength = 1024

    /// The key number and payload (32-byte key or 64-byte signature) of a
    /// file whose decoded line must be `2 + 8 + payloadLength` bytes.
    static func decode(_ data: Data, payloadLength: Int) throws(SignifyFormatError) -> (keyNumber: KeyNumber, payload: Data) {
        let decoded = try decodedLine(data)
        let expected = 2 + 8 + payloadLength
        guard decoded.count == expected else {
            throw SignifyFormatError("its second line decodes to \(decoded.count) bytes, not \(expected)")
        }
        guard decoded.prefix(2) == Data("Ed".utf8) else {
            throw SignifyFormatError("its algorithm is not Ed25519 ('Ed')")
        }
        return (KeyNumber(bytes: decoded.dropFirst(2).prefix(8)), Data(decoded.dropFirst(10)))
    }

    /// The file in signify's layout, for `bytes` that start with "Ed".
    static func encode(comment: String, _ bytes: Data) -> Data {
        Data("untrusted comment: \(comment)\n\(bytes.base64EncodedString())\n".utf8)
    }

    /// The bytes of the second line: the comment checked, the base64 decoded;
    /// the caller checks their layout (public key, signature or secret key).
    static func decodedLine(_ data: Data) throws(SignifyFormatError) -> Data {
        guard !data.isEmpty else { throw SignifyFormatError("it is empty") }
        guard data.count <= maxSize else { throw SignifyFormatError("it is \(data.count) bytes, more than a signify file's \(maxSize)") }
        let bytes = Array(data)
        guard bytes.starts(with: commentPrefix) else {
            throw SignifyFormatError("its first line does not start with 'untrusted comment: '")
        }
        guard let commentEnd = bytes.firstIndex(of: UInt8(ascii: "\n")) else {
            throw SignifyFormatError("it ends inside its comment line")
        }
        guard commentEnd - commentPrefix.count <= maxCommentLength else {
            throw SignifyFormatError("its comment is longer than \(maxCommentLength) bytes")
        }
        let rest = bytes[(commentEnd + 1)...]
        guard let lineEnd = rest.firstIndex(of: UInt8(ascii: "\n")) else {
            throw SignifyFormatError("its second line has no end (the file is cut short)")
        }
        guard lineEnd + 1 == bytes.count else {
            throw SignifyFormatError("it goes on after its second line (an embedded signature? make a detached one with 'signify-openbsd -S' without -e)")
        }
        guard let decoded = Data(base64Encoded: Data(rest[..<lineEnd])) else {
            throw SignifyFormatError("its second line is not base64")
        }
        return decoded
    }
}

/// The 8 random bytes signify gives a key pair, repeated in each signature,
/// so that a verifier picks the right key among several (key rotation).
public struct KeyNumber: Sendable, Hashable, CustomStringConvertible {
    public let bytes: Data

    init(bytes: Data) {
        self.bytes = Data(bytes)
    }

    /// Hexadecimal, as the bytes stand.
    public var description: String { CacheStore.hex(bytes) }
}

/// Why a file is not a signify public key or detached signature.
public struct SignifyFormatError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}
