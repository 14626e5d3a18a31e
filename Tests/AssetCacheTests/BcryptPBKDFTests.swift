import Testing

@testable import AssetCache

/// bcrypt_pbkdf against published answers. The vectors are OpenBSD's
/// (regress/lib/libutil/bcrypt_pbkdf), as RustCrypto's password-hashes
/// repository repeats them in bcrypt-pbkdf/tests/test_vectors.rs
/// (test_openbsd_vectors). signify's own keys test the rest end to end
/// (SignifySigningTests).
@Suite struct BcryptPBKDFTests {
    @Test func matchesOpenBSDsVectors() {
        let long = BcryptPBKDF.derive(passphrase: Array("password".utf8), salt: Array("salt".utf8), rounds: 4, length: 32)
        #expect(CacheStore.hex(long) == "5bbf0cc293587f1c3635555c27796598d47e579071bf427e9d8fbe842aba34d9")
        let short = BcryptPBKDF.derive(passphrase: Array("password".utf8), salt: [0], rounds: 4, length: 16)
        #expect(CacheStore.hex(short) == "c12b566235eee04c212598970a579a67")
    }
}
