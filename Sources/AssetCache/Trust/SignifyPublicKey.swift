import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A signify public key (`signify-openbsd -G` writes it as KEY.pub): the
/// publisher's Ed25519 key that manifests must be signed with.
public struct SignifyPublicKey: Sendable {
    public let keyNumber: KeyNumber
    /// Where it came from, to name it in messages (say, its file).
    public let name: String
    let key: Curve25519.Signing.PublicKey

    public init(_ data: Data, name: String) throws(SignifyFormatError) {
        let (keyNumber, payload) = try SignifyFile.decode(data, payloadLength: 32)
        do {
            key = try Curve25519.Signing.PublicKey(rawRepresentation: payload)
        } catch {
            throw SignifyFormatError("its key is not a valid Ed25519 public key")
        }
        self.keyNumber = keyNumber
        self.name = name
    }

    /// The public half of a secret key (``SignifySecretKey/publicKey``).
    init(key: Curve25519.Signing.PublicKey, keyNumber: KeyNumber, name: String) {
        self.key = key
        self.keyNumber = keyNumber
        self.name = name
    }
}

/// A detached signify signature (`signify-openbsd -S` writes MANIFEST.sig).
struct SignifySignature {
    let keyNumber: KeyNumber
    let signature: Data

    init(_ data: Data) throws(SignifyFormatError) {
        (keyNumber, signature) = try SignifyFile.decode(data, payloadLength: 64)
    }
}
