/// Why a signed manifest was refused. Each names its cause, so that a
/// publisher knows whether to sign, re-sign, or ship the device another key.
public enum ManifestSignatureError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No signature where it must be: `name` is where it was looked for.
    case missing(name: String)
    /// Not a detached signify signature.
    case malformed(name: String, reason: String)
    /// Made by a key that no trusted key has the number of.
    case unknownKey(name: String, keyNumber: String, trusted: [String])
    /// Made by a trusted key's number, but not over these bytes with that key.
    case badSignature(name: String, keyNumber: String, key: String)

    public var description: String {
        switch self {
        case .missing(let name):
            "signature missing: there is no '\(name)'; sign the manifest with 'signify-openbsd -S -s KEY.sec -m MANIFEST'"
        case .malformed(let name, let reason):
            "signature malformed: '\(name)' is not a detached signify signature: \(reason)"
        case .unknownKey(let name, let keyNumber, let trusted):
            "unknown key: '\(name)' was made by key \(keyNumber), which is not a trusted key (trusted: \(trusted.joined(separator: ", ")))"
        case .badSignature(let name, let keyNumber, let key):
            "bad signature: '\(name)' does not match the manifest's bytes under key \(keyNumber) (\(key)): the manifest was changed after it was signed, or the signature is another file's"
        }
    }
}
