/// A member's key as it is in the text, valid while the reader reads it: known
/// keys are matched on its bytes (``JSONKeyTable``), and only a key whose value
/// is kept is made into a `String`.
package struct JSONKey {
    let bytes: UnsafeBufferPointer<UInt8>
    let escaped: Bool

    package var string: String { JSONString.decode(bytes, escaped: escaped) }

    /// Whether two keys have the same value, however each was escaped.
    func sameValue(as other: JSONKey) -> Bool {
        if !escaped && !other.escaped { return JSONString.same(bytes, other.bytes) }
        return value == other.value
    }

    /// The key's UTF-8 bytes, escapes decoded.
    var value: [UInt8] { escaped ? JSONString.unescape(bytes) : Array(bytes) }

    /// Length and first bytes: two keys that differ here differ. An escaped key's
    /// bytes are not its value, so it compares equal to every key and the bytes decide.
    var fingerprint: UInt64 {
        escaped ? 0 : Self.fingerprint(of: bytes)
    }

    @inline(__always)
    static func fingerprint(of bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var word = UInt64(truncatingIfNeeded: bytes.count) &<< 56
        guard let start = bytes.baseAddress else { return word }
        for index in 0..<min(bytes.count, 7) { word |= UInt64(start[index]) &<< (index &* 8) }
        return word
    }
}

/// The keys of the objects open at the moment that no ``JSONKeyTable`` knows, to
/// refuse one given twice (which of two values wins is a parser's choice, so two
/// parsers could read two different documents). Each key is tagged with its
/// object's nesting level; small objects are searched in order, large ones hash.
struct JSONKeySet {
    private struct Entry {
        var key: JSONKey
        var fingerprint: UInt64
        var level: Int
    }

    private static let linearLimit = 16
    private var entries: [Entry] = []
    /// The objects past `linearLimit` keys, by nesting level.
    private var large: [Int: Set<[UInt8]>] = [:]

    /// Forgets the keys of the object at `level`, which has closed.
    mutating func close(level: Int) {
        while let last = entries.last, last.level >= level { entries.removeLast() }
        if !large.isEmpty { large[level] = nil }
    }

    /// False when the object at `level` already has `key`.
    mutating func insert(_ key: JSONKey, level: Int) -> Bool {
        if !large.isEmpty, large[level] != nil { return large[level]!.insert(key.value).inserted }
        var start = entries.count
        while start > 0, entries[start - 1].level == level { start -= 1 }
        if entries.count - start == Self.linearLimit {
            var set = Set(entries[start...].map(\.key.value))
            entries.removeSubrange(start...)
            let inserted = set.insert(key.value).inserted
            large[level] = set
            return inserted
        }
        let fingerprint = key.fingerprint
        // By index, not over a slice: a slice holds the array's storage, and
        // that retain and release per key was an eighth of this function's instructions.
        for index in start..<entries.count {
            let entry = entries[index]
            if entry.fingerprint == fingerprint || fingerprint == 0 || entry.fingerprint == 0, entry.key.sameValue(as: key) {
                return false
            }
        }
        entries.append(Entry(key: key, fingerprint: fingerprint, level: level))
        return true
    }
}
