import Crypto

/// OpenBSD's bcrypt_pbkdf (lib/libutil/bcrypt_pbkdf.c, also in OpenSSH's
/// openbsd-compat): PBKDF2's structure with SHA-512 collapsing the passphrase
/// and salt and a bcrypt-style Blowfish hash as the round function. signify
/// derives the 64 bytes that seal a secret key with it, so a publisher's
/// passphrase-protected key can only be opened by the same function.
enum BcryptPBKDF {
    /// The bcrypt hash's output: eight words.
    private static let blockSize = 32
    /// The constant bcrypt encrypts 64 times, as bcrypt_pbkdf.c spells it.
    private static let magic = Array("OxychromaticBlowfishSwatDynamite".utf8)

    /// `length` bytes from `passphrase` and `salt`, `rounds` rounds. The
    /// caller checks what bcrypt_pbkdf refuses (returns -1 for): an empty
    /// passphrase or salt, zero rounds, a length of 0 or above 1024.
    static func derive(passphrase: [UInt8], salt: [UInt8], rounds: UInt32, length: Int) -> [UInt8] {
        precondition(!passphrase.isEmpty && !salt.isEmpty && rounds > 0 && (1...blockSize * blockSize).contains(length))
        // Output bytes are spread over the blocks, byte i of block b going to
        // key[i * stride + b]: so that an attacker must compute every block to
        // learn any part of the key (bcrypt_pbkdf.c's "pbkdf2 deviation").
        let stride = (length + blockSize - 1) / blockSize
        let perBlock = (length + stride - 1) / stride
        let passphraseHash = Array(SHA512.hash(data: passphrase))
        var key = [UInt8](repeating: 0, count: length)
        for block in 1...stride {
            let count = UInt32(block)
            let counter = [UInt8(count >> 24), UInt8((count >> 16) & 0xff), UInt8((count >> 8) & 0xff), UInt8(count & 0xff)]
            var roundOutput = hash(passphraseHash, Array(SHA512.hash(data: salt + counter)))
            var output = roundOutput
            for _ in 1..<rounds {
                roundOutput = hash(passphraseHash, Array(SHA512.hash(data: roundOutput)))
                for index in output.indices { output[index] ^= roundOutput[index] }
            }
            for index in 0..<perBlock {
                let destination = index * stride + block - 1
                guard destination < length else { break }
                key[destination] = output[index]
            }
        }
        return key
    }

    /// bcrypt_hash: Blowfish keyed with both hashes (64 extra expansions),
    /// then the magic encrypted 64 times, its words written little-endian.
    private static func hash(_ passphraseHash: [UInt8], _ saltHash: [UInt8]) -> [UInt8] {
        var cipher = Blowfish()
        cipher.expand(key: passphraseHash, salt: saltHash)
        for _ in 0..<64 {
            cipher.expand(key: saltHash)
            cipher.expand(key: passphraseHash)
        }
        var magicWords = Blowfish.WordStream(magic)
        var words = (0..<blockSize / 4).map { _ in magicWords.next() }
        for _ in 0..<64 { cipher.encrypt(&words) }
        return words.flatMap { word in (0..<4).map { UInt8((word >> (8 * $0)) & 0xff) } }
    }
}
