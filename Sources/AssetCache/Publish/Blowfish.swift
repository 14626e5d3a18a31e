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
        var block: (left: UInt32, right: UInt32) = (0, 0)
        p.withUnsafeMutableBufferPointer { p in
            s.withUnsafeMutableBufferPointer { s in
                let (pBase, sBase) = (p.baseAddress!, s.baseAddress!)
                for (table, count) in [(pBase, p.count), (sBase, s.count)] {
                    var index = 0
                    while index < count {
                        if saltWords != nil {
                            block.left ^= saltWords!.next()
                            block.right ^= saltWords!.next()
                        }
                        block = Self.encrypt(block, p: pBase, s: sBase)
                        table[index] = block.left
                        table[index + 1] = block.right
                        index += 2
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
                    (words[index], words[index + 1]) = Self.encrypt((words[index], words[index + 1]), p: p.baseAddress!, s: s.baseAddress!)
                }
            }
        }
    }

    /// One block: 16 Feistel rounds (Blowfish_encipher). Raw pointers, since
    /// every index is in range by construction (a byte, plus a box's offset)
    /// and a debug build's bounds checks here made a signify key take seconds
    /// to open in the tests.
    @inline(__always)
    private static func encrypt(_ block: (UInt32, UInt32), p: UnsafePointer<UInt32>, s: UnsafePointer<UInt32>) -> (left: UInt32, right: UInt32) {
        var l = block.0 ^ p[0]
        var r = block.1
        var round = 1
        while round < 17 {
            r ^= f(l, s) ^ p[round]
            l ^= f(r, s) ^ p[round + 1]
            round += 2
        }
        return (r ^ p[17], l)
    }

    @inline(__always)
    private static func f(_ x: UInt32, _ s: UnsafePointer<UInt32>) -> UInt32 {
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
