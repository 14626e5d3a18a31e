import Crypto
import FoundationEssentials

/// A digest of the whole file that a server sent with an answer (issue 37):
/// what proves a ZIP rebuilt by delta is byte for byte the server's when the
/// manifest pins nothing. Only fields that describe the whole file whatever
/// part of it the answer carries are taken from a 206:
///
/// - `Repr-Digest` (RFC 9530 §3): of the selected representation, so of the
///   whole file for any status; `sha-256` or `sha-512`.
/// - `x-goog-hash` (Google Cloud Storage): `md5=` is the object's, sent with
///   ranged reads too; `crc32c=` is not taken (32 bits prove nothing).
/// - `Content-Digest` (RFC 9530 §2) and `Content-MD5` (RFC 1864): of the
///   message's content, which for a 206 is the part sent; taken from a 200 only.
///
/// A member that does not parse, or whose length is not its algorithm's, is
/// ignored, as are other algorithms (RFC 9530 §5: insecure ones included).
struct ServedDigest: Equatable, Sendable {
    enum Algorithm: String, Sendable {
        case sha256 = "sha-256"
        case sha512 = "sha-512"
        case md5

        var length: Int {
            switch self {
            case .sha256: 32
            case .sha512: 64
            case .md5: 16
            }
        }
    }

    var algorithm: Algorithm
    var bytes: [UInt8]
    /// The field it came from, lower-cased (`repr-digest`), for messages.
    var field: String

    /// The strongest whole-file digest among `headers` of an answer of
    /// `status`: SHA-256 before SHA-512 (the rebuild hashes SHA-256 anyway)
    /// before MD5; nil when there is none.
    static func of(_ headers: ResponseHeaders, status: Int) -> ServedDigest? {
        var found: [ServedDigest] = []
        if let value = headers["repr-digest"] { found += dictionary(value, field: "repr-digest") }
        if status == 200, let value = headers["content-digest"] { found += dictionary(value, field: "content-digest") }
        if let value = headers["x-goog-hash"] { found += googHash(value) }
        if status == 200, let value = headers["content-md5"], let bytes = base64(value, length: 16) {
            found.append(ServedDigest(algorithm: .md5, bytes: bytes, field: "content-md5"))
        }
        let order: [Algorithm] = [.sha256, .sha512, .md5]
        return order.lazy.compactMap { algorithm in found.first { $0.algorithm == algorithm } }.first
    }

    /// The members of an RFC 8941 dictionary (`sha-256=:BASE64:, sha-512=:BASE64:`)
    /// that are byte sequences of a known algorithm; parameters are ignored.
    /// Base64 has no comma, so members split on commas.
    static func dictionary(_ value: String, field: String) -> [ServedDigest] {
        value.split(separator: ",").compactMap { member in
            let parts = member.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let algorithm = Algorithm(rawValue: ResponseHead.trimmed(String(parts[0])).lowercased()),
                  algorithm != .md5
            else { return nil }
            let item = ResponseHead.trimmed(String(parts[1].split(separator: ";", omittingEmptySubsequences: false)[0]))
            guard item.count >= 2, item.hasPrefix(":"), item.hasSuffix(":"),
                  let bytes = base64(String(item.dropFirst().dropLast()), length: algorithm.length)
            else { return nil }
            return ServedDigest(algorithm: algorithm, bytes: bytes, field: field)
        }
    }

    /// `x-goog-hash: crc32c=BASE64,md5=BASE64` (one field or several, joined
    /// with commas): its MD5. A composite object has none.
    static func googHash(_ value: String) -> [ServedDigest] {
        value.split(separator: ",").compactMap { member in
            let parts = member.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, ResponseHead.trimmed(String(parts[0])).lowercased() == "md5",
                  let bytes = base64(ResponseHead.trimmed(String(parts[1])), length: 16)
            else { return nil }
            return ServedDigest(algorithm: .md5, bytes: bytes, field: "x-goog-hash")
        }
    }

    private static func base64(_ text: String, length: Int) -> [UInt8]? {
        guard let data = Data(base64Encoded: ResponseHead.trimmed(text)), data.count == length else { return nil }
        return [UInt8](data)
    }

    /// Whether bytes whose SHA-256 is `sha256` and whose digest in this
    /// algorithm is `own` (for SHA-512 and MD5, ``Hasher``'s) are the ones meant.
    func matches(sha256: [UInt8], own: [UInt8]?) -> Bool {
        algorithm == .sha256 ? sha256 == bytes : own == bytes
    }

    /// The SHA-256 of bytes as they go, and the served digest's own algorithm's
    /// when that is another: one pass over the rebuilt file.
    struct Hasher {
        private var sha256 = SHA256()
        private var sha512: SHA512?
        private var md5: Insecure.MD5?

        init(also algorithm: Algorithm?) {
            if algorithm == .sha512 { sha512 = SHA512() }
            if algorithm == .md5 { md5 = Insecure.MD5() }
        }

        mutating func update(_ bytes: UnsafeRawBufferPointer) {
            sha256.update(bufferPointer: bytes)
            sha512?.update(bufferPointer: bytes)
            md5?.update(bufferPointer: bytes)
        }

        /// The SHA-256, and the other algorithm's digest when there is one.
        func finalize() -> (sha256: [UInt8], own: [UInt8]?) {
            (Array(sha256.finalize()), sha512.map { Array($0.finalize()) } ?? md5.map { Array($0.finalize()) })
        }
    }
}
