import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A publisher's signify secret key (`signify-openbsd -G` writes it as
/// KEY.sec), opened to sign manifests. The file's second line is the base64
/// of: "Ed", "BK" (bcrypt_pbkdf), the KDF's rounds (UInt32, big-endian; 0
/// when made with -n), a 16-byte salt, an 8-byte checksum, the 8-byte key
/// number and the 64-byte Ed25519 secret key, XORed with bcrypt_pbkdf of the
/// passphrase when there are rounds.
public struct SignifySecretKey: Sendable {
    public let keyNumber: KeyNumber
    /// The file it was read from: the signature's comment names its .pub.
    public let name: String
    let key: Curve25519.Signing.PrivateKey

    /// signify always writes 42 rounds; a file asking for millions would hang
    /// the publish, so a number far above that is taken for a corrupt file.
    static let maxRounds: UInt32 = 4096
    private static let length = 2 + 2 + 4 + 16 + 8 + 8 + 64

    /// Reads the key at `path`, refusing a file others can read or a link,
    /// and asks `passphrase` only when the key is sealed with one.
    public static func load(path: String, passphrase: PassphraseSource) throws(SignifySecretKeyError) -> SignifySecretKey {
        let data = try PrivateFile.read(path, maxSize: SignifyFile.maxSize, as: "secret key")
        return try SignifySecretKey(data, name: path, passphrase: passphrase)
    }

    init(_ data: Data, name: String, passphrase: PassphraseSource) throws(SignifySecretKeyError) {
        let bytes: [UInt8]
        do {
            bytes = Array(try SignifyFile.decodedLine(data))
        } catch {
            throw .format(path: name, error)
        }
        guard bytes.count == Self.length else {
            throw .format(path: name, SignifyFormatError("its second line decodes to \(bytes.count) bytes, not \(Self.length)"))
        }
        guard bytes[0..<4] == Array("EdBK".utf8)[...] else {
            throw .format(path: name, SignifyFormatError("its algorithms are not Ed25519 and bcrypt_pbkdf ('EdBK')"))
        }
        let rounds = bytes[4..<8].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        var secret = Array(bytes[40..<104])
        if rounds > 0 {
            guard rounds <= Self.maxRounds else { throw .corrupt(path: name, reason: "it asks for \(rounds) KDF rounds (signify writes 42)") }
            let phrase = try passphrase.read()
            let mask = BcryptPBKDF.derive(passphrase: phrase, salt: Array(bytes[8..<24]), rounds: rounds, length: secret.count)
            for index in secret.indices { secret[index] ^= mask[index] }
        }
        // signify's own check: the first 8 bytes of SHA-512 of the opened key.
        guard Array(SHA512.hash(data: secret).prefix(8)) == Array(bytes[24..<32]) else {
            throw rounds > 0 ? .wrongPassphrase(path: name) : .corrupt(path: name, reason: "its checksum does not match its key")
        }
        guard let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: secret[0..<32]),
              key.publicKey.rawRepresentation == Data(secret[32..<64]) else {
            throw .corrupt(path: name, reason: "its Ed25519 key does not match its own public half")
        }
        self.key = key
        self.keyNumber = KeyNumber(bytes: Data(bytes[32..<40]))
        self.name = name
    }

    /// The detached signature of `message`, byte for byte as
    /// `signify-openbsd -S -s NAME.sec` writes it: "verify with NAME.pub"
    /// (the file's base name), then "Ed", the key number and the signature.
    /// Ed25519 is deterministic, so the bytes are signify's own.
    public func signature(for message: Data) throws -> Data {
        let signature = try key.signature(for: message)
        return SignifyFile.encode(comment: signatureComment, Data("Ed".utf8) + keyNumber.bytes + signature)
    }

    /// The public half, as KEY.pub holds it: to check what was signed as a device will.
    public var publicKey: SignifyPublicKey {
        SignifyPublicKey(key: key.publicKey, keyNumber: keyNumber, name: name)
    }

    /// signify refuses a key not named *.sec; this names its file instead.
    var signatureComment: String {
        let base = name.split(separator: "/").last.map(String.init) ?? name
        guard base.hasSuffix(".sec"), base.count > 4 else { return "verify with the public key of \(base)" }
        return "verify with \(base.dropLast(4)).pub"
    }
}

/// Why a signify secret key cannot sign: each names the file.
public enum SignifySecretKeyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `what`: the secret key, or its passphrase file.
    case unreadable(path: String, reason: String, what: String = "secret key")
    /// Group or others may read it, as OpenSSH refuses such private keys.
    case exposed(path: String, mode: UInt32, what: String = "secret key")
    case format(path: String, SignifyFormatError)
    case wrongPassphrase(path: String)
    case corrupt(path: String, reason: String)
    /// The passphrase could not be read, or was empty.
    case passphrase(String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason, let what): "cannot read \(what) '\(path)': \(reason)"
        case .exposed(let path, let mode, let what):
            "\(what) '\(path)' is readable by others (mode \(String(mode & 0o777, radix: 8))): \(what == "secret key" ? "a signing key" : "it") must be private to its owner"
        case .format(let path, let error): "'\(path)' is not a signify secret key: \(error)"
        case .wrongPassphrase(let path): "wrong passphrase for secret key '\(path)'"
        case .corrupt(let path, let reason): "secret key '\(path)' is corrupt: \(reason)"
        case .passphrase(let reason): "cannot read the passphrase: \(reason)"
        }
    }

    /// What to do about it, for a `hint:` line.
    public var hint: String? {
        switch self {
        case .exposed(let path, _, _): "chmod 600 '\(path)'"
        case .wrongPassphrase: "the passphrase is the one given to 'signify-openbsd -G' when the key was made"
        default: nil
        }
    }
}
