#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The publisher keys a device accepts manifests from. Several may be
/// trusted at once, so that a publisher can rotate keys: each signature
/// names its key's number, and only that key is tried.
public struct TrustedKeys: Sendable {
    public let keys: [SignifyPublicKey]

    public init(_ keys: [SignifyPublicKey]) {
        self.keys = keys
    }

    /// Checks `signature` (the bytes of a detached signify signature, nil when
    /// there is none) against the manifest's exact bytes. `name` says where the
    /// signature is, for the messages.
    public func verify(_ manifest: Data, signature: Data?, name: String) throws(ManifestSignatureError) {
        guard let signature else { throw .missing(name: name) }
        let parsed: SignifySignature
        do {
            parsed = try SignifySignature(signature)
        } catch {
            throw .malformed(name: name, reason: error.description)
        }
        let candidates = keys.filter { $0.keyNumber == parsed.keyNumber }
        guard !candidates.isEmpty else {
            throw .unknownKey(
                name: name, keyNumber: parsed.keyNumber.description,
                trusted: keys.map { "\($0.keyNumber) from \($0.name)" })
        }
        guard candidates.contains(where: { $0.key.isValidSignature(parsed.signature, for: manifest) }) else {
            throw .badSignature(
                name: name, keyNumber: parsed.keyNumber.description, key: candidates.map(\.name).joined(separator: ", "))
        }
    }
}
