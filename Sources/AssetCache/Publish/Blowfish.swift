/// Blowfish as far as bcrypt_pbkdf needs it: the "expensive key schedule" of
/// bcrypt (Provos and Mazières, 1999; OpenBSD's Blowfish_expandstate and
/// Blowfish_expand0state) and the encryption of 64-bit blocks. signify seals
/// its secret keys with bcrypt_pbkdf, and swift-crypto has no Blowfish, so it
/// lives here; nothing else may use it as a cipher.
struct Blowfish {
    private var p: [UInt32]
    /// The four S-boxes, 256 words each, one after another.
    private var s: [UInt32]

    init() {
        p = Self.initialP
        s = Self.initialS
    }

    /// Mixes `key` into the P-array, then re-fills P and the S-boxes by
    /// encrypting a running block, XORed with the next words of `salt` each
    /// time when there is one (Blowfish_expandstate), or alone without
    /// (Blowfish_expand0state).
    mutating func expand(key: [UInt8], salt: [UInt8]? = nil) {
        var keyWords = WordStream(key)
        for index in p.indices { p[index] ^= keyWords.next() }
        var saltWords = salt.map(WordStream.init)
        var left: UInt32 = 0
        var right: UInt32 = 0
        p.withUnsafeMutableBufferPointer { p in
            s.withUnsafeMutableBufferPointer { s in
                for table in [p, s] {
                    for index in stride(from: 0, to: table.count, by: 2) {
                        if saltWords != nil {
                            left ^= saltWords!.next()
                            right ^= saltWords!.next()
                        }
                        Self.encrypt(&left, &right, p: UnsafeBufferPointer(p), s: UnsafeBufferPointer(s))
                        table[index] = left
                        table[index + 1] = right
                    }
                }
            }
        }
    }

    /// Encrypts consecutive blocks of two words each, in place (blf_enc).
    func encrypt(_ words: inout [UInt32]) {
        p.withUnsafeBufferPointer { p in
            s.withUnsafeBufferPointer { s in
                for index in stride(from: 0, to: words.count - 1, by: 2) {
                    var (left, right) = (words[index], words[index + 1])
                    Self.encrypt(&left, &right, p: p, s: s)
                    (words[index], words[index + 1]) = (left, right)
                }
            }
        }
    }

    /// One block: 16 Feistel rounds (Blowfish_encipher).
    @inline(__always)
    private static func encrypt(_ left: inout UInt32, _ right: inout UInt32, p: UnsafeBufferPointer<UInt32>, s: UnsafeBufferPointer<UInt32>) {
        var l = left ^ p[0]
        var r = right
        for round in stride(from: 1, through: 15, by: 2) {
            r ^= f(l, s) ^ p[round]
            l ^= f(r, s) ^ p[round + 1]
        }
        left = r ^ p[17]
        right = l
    }

    @inline(__always)
    private static func f(_ x: UInt32, _ s: UnsafeBufferPointer<UInt32>) -> UInt32 {
        let a = s[Int(x >> 24)]
        let b = s[256 + Int((x >> 16) & 0xff)]
        let c = s[512 + Int((x >> 8) & 0xff)]
        let d = s[768 + Int(x & 0xff)]
        return ((a &+ b) ^ c) &+ d
    }

    /// Big-endian words read round and round a byte string, as long as asked
    /// (OpenBSD's Blowfish_stream2word): keys and salts of any length fill
    /// the 18 words of P and beyond.
    struct WordStream {
        private let bytes: [UInt8]
        private var index = 0

        init(_ bytes: [UInt8]) {
            precondition(!bytes.isEmpty, "a Blowfish key or salt is never empty")
            self.bytes = bytes
        }

        mutating func next() -> UInt32 {
            var word: UInt32 = 0
            for _ in 0..<4 {
                word = word << 8 | UInt32(bytes[index])
                index = (index + 1) % bytes.count
            }
            return word
        }
    }
}
