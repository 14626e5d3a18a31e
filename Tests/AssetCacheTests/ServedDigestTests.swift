import Crypto
import Foundation
import Testing
@testable import AssetCache

/// Which header fields prove a whole file (issue 37), parsed strictly: a
/// member that does not parse proves nothing.
@Suite struct ServedDigestTests {
    static let bytes = Array("hello world\n".utf8)
    static let sha256 = Array(SHA256.hash(data: bytes))
    static let sha512 = Array(SHA512.hash(data: bytes))
    static let md5 = Array(Insecure.MD5.hash(data: bytes))

    static func base64(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }

    static func headers(_ fields: [String: String]) -> ResponseHeaders { ResponseHeaders(fields: fields) }

    @Test func reprDigestProvesAnyAnswerAndSHA256ComesFirst() throws {
        let both = "sha-512=:\(Self.base64(Self.sha512)):, sha-256=:\(Self.base64(Self.sha256)):;x=1"
        let digest = try #require(ServedDigest.of(Self.headers(["Repr-Digest": both]), status: 206))
        #expect(digest.algorithm == .sha256)
        #expect(digest.bytes == Self.sha256)
        #expect(digest.field == "repr-digest")
        #expect(digest.matches(sha256: Self.sha256, own: nil))
        #expect(!digest.matches(sha256: Self.sha512.prefix(32).map { $0 }, own: nil))
        let only512 = try #require(ServedDigest.of(Self.headers(["repr-digest": "SHA-512=:\(Self.base64(Self.sha512)):"]), status: 206))
        #expect(only512.algorithm == .sha512)
        #expect(only512.matches(sha256: [], own: Self.sha512))
    }

    @Test func contentDigestAndContentMD5OfAPartAreNotTheFiles() {
        let fields = ["Content-Digest": "sha-256=:\(Self.base64(Self.sha256)):", "Content-MD5": Self.base64(Self.md5)]
        #expect(ServedDigest.of(Self.headers(fields), status: 206) == nil)
        #expect(ServedDigest.of(Self.headers(fields), status: 200)?.field == "content-digest")
        #expect(ServedDigest.of(Self.headers(["Content-MD5": Self.base64(Self.md5)]), status: 200)?.algorithm == .md5)
    }

    @Test func googHashGivesItsMD5AndNotItsCRC32C() throws {
        let value = "crc32c=8P9ykg==, md5=\(Self.base64(Self.md5))"
        let digest = try #require(ServedDigest.of(Self.headers(["x-goog-hash": value]), status: 206))
        #expect(digest.algorithm == .md5)
        #expect(digest.bytes == Self.md5)
        // A composite object has a CRC-32C only.
        #expect(ServedDigest.of(Self.headers(["x-goog-hash": "crc32c=8P9ykg=="]), status: 206) == nil)
    }

    @Test(arguments: [
        "sha-256=\(base64(sha256))",  // a token, not a byte sequence
        "sha-256=:\(base64(sha512)):",  // a SHA-512's length
        "sha-256=:not base64!:",
        "md5=:\(base64(md5)):",  // RFC 9530 §5: not for Repr-Digest
        "crc32c=:AAAAAA==:",
        "sha-256",
        ":",
    ])
    func aMemberThatDoesNotParseProvesNothing(value: String) {
        #expect(ServedDigest.of(Self.headers(["Repr-Digest": value]), status: 206) == nil)
    }

    @Test func theHasherGivesTheOtherAlgorithmsDigestBeside() {
        for (algorithm, expected) in [(ServedDigest.Algorithm.sha512, Self.sha512), (.md5, Self.md5)] {
            var hasher = ServedDigest.Hasher(also: algorithm)
            Self.bytes.withUnsafeBytes { hasher.update($0) }
            let (sha256, own) = hasher.finalize()
            #expect(sha256 == Self.sha256)
            #expect(own == expected)
        }
        var plain = ServedDigest.Hasher(also: .sha256)
        Self.bytes.withUnsafeBytes { plain.update($0) }
        #expect(plain.finalize().own == nil)
    }
}
