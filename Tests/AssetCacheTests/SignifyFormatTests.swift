import Crypto
import Foundation
import Testing

@testable import AssetCache

/// Signify files as a server might mangle them, and keys picked by number.
/// Files are written here in signify's layout with swift-crypto keys; the
/// end-to-end tests use `signify-openbsd` itself.
@Suite struct SignifyFormatTests {
    static let number = Data([1, 2, 3, 4, 5, 6, 7, 8])

    static func file(_ payload: Data, number: Data = number, algorithm: String = "Ed", comment: String = "test") -> Data {
        Data("untrusted comment: \(comment)\n\((Data(algorithm.utf8) + number + payload).base64EncodedString())\n".utf8)
    }

    static func keys(_ signing: Curve25519.Signing.PrivateKey, number: Data = number) throws -> TrustedKeys {
        TrustedKeys([try SignifyPublicKey(file(signing.publicKey.rawRepresentation, number: number), name: "k.pub")])
    }

    @Test func verifiesTheExactBytesUnderTheKeyTheSignatureNames() throws {
        let signing = Curve25519.Signing.PrivateKey()
        let manifest = Data(#"{"triggers": []}"#.utf8)
        let signature = Self.file(try signing.signature(for: manifest))
        let other = Curve25519.Signing.PrivateKey()
        let keys = TrustedKeys(
            try Self.keys(other, number: Data(repeating: 9, count: 8)).keys + (try Self.keys(signing).keys))

        try keys.verify(manifest, signature: signature, name: "m.sig")
        #expect(throws: ManifestSignatureError.badSignature(name: "m.sig", keyNumber: "0102030405060708", key: "k.pub")) {
            try keys.verify(manifest + Data(" ".utf8), signature: signature, name: "m.sig")
        }
        #expect(throws: ManifestSignatureError.missing(name: "m.sig")) {
            try keys.verify(manifest, signature: nil, name: "m.sig")
        }
        let stranger = Self.file(try other.signature(for: manifest), number: Data(repeating: 7, count: 8))
        #expect(throws: ManifestSignatureError.unknownKey(
            name: "m.sig", keyNumber: "0707070707070707", trusted: ["0909090909090909 from k.pub", "0102030405060708 from k.pub"])) {
            try keys.verify(manifest, signature: stranger, name: "m.sig")
        }
    }

    @Test func malformedSignaturesNameWhatIsWrong() throws {
        let signing = Curve25519.Signing.PrivateKey()
        let manifest = Data("{}".utf8)
        let good = Self.file(try signing.signature(for: manifest))
        let line = String(decoding: good, as: UTF8.self).split(separator: "\n")[1]
        let cases: [(Data, String)] = [
            (Data(), "it is empty"),
            (Data("comment: x\n\(line)\n".utf8), "does not start with 'untrusted comment: '"),
            (good.prefix(20), "it ends inside its comment line"),
            (good.dropLast(), "its second line has no end"),
            (good + Data("{}".utf8), "it goes on after its second line"),
            (Data("untrusted comment: x\nnot*base64\n".utf8), "its second line is not base64"),
            (Self.file(Data(count: 10)), "decodes to 20 bytes, not 74"),
            (Self.file(Data(count: 64), algorithm: "Ex"), "its algorithm is not Ed25519"),
            (Self.file(Data(count: 64), comment: String(repeating: "c", count: 1025)), "its comment is longer than 1024 bytes"),
            (Data(repeating: 0x41, count: 5000), "more than a signify file's 4096"),
        ]
        let keys = try Self.keys(signing)
        for (signature, reason) in cases {
            do {
                try keys.verify(manifest, signature: signature, name: "m.sig")
                Issue.record("accepted a signature that \(reason)")
            } catch {
                guard case .malformed(_, let message) = error else {
                    Issue.record("\(reason): \(error)")
                    continue
                }
                #expect(message.contains(reason), "\(message)")
            }
        }
    }

    @Test func publicKeyMustBeOneAndOfTheRightLength() throws {
        #expect(throws: SignifyFormatError.self) { try SignifyPublicKey(Self.file(Data(count: 64)), name: "sig-as-key") }
        #expect(throws: SignifyFormatError.self) { try SignifyPublicKey(Data("hello\n".utf8), name: "text") }
        let key = try SignifyPublicKey(Self.file(Curve25519.Signing.PrivateKey().publicKey.rawRepresentation), name: "k.pub")
        #expect(key.keyNumber.description == "0102030405060708")
    }

    @Test func signatureURLEndsThePathAndKeepsTheQuery() throws {
        #expect(RemoteManifest.signatureURL(of: try AssetURL(parsing: "https://cdn.test/m.json")).string == "https://cdn.test/m.json.sig")
        #expect(RemoteManifest.signatureURL(of: try AssetURL(parsing: "https://cdn.test/m.json?v=2")).string == "https://cdn.test/m.json.sig?v=2")
        #expect(RemoteManifest.signatureURL(of: try AssetURL(parsing: "https://cdn.test")).string == "https://cdn.test/.sig")
    }
}
