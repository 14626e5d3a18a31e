/// The keys a document knows in one kind of object, as an enum whose raw values
/// are the JSON names: ``JSONReader/object(_:_:)`` hands each member over as
/// one of them (nil for a key it does not know), matched on the key's bytes.
package protocol JSONObjectKey: RawRepresentable<String>, CaseIterable, Sendable {
    /// `JSONKeyTable(Self.self)`, made once.
    static var table: JSONKeyTable<Self> { get }
}

/// Finds a key among a few known ones in one probe: the key's length and first
/// bytes (``JSONKey/fingerprint``) hash to a slot that holds at most one known
/// name, a multiplier with no collisions being chosen when the table is made.
/// Only a name longer than the fingerprint is then compared byte for byte.
package struct JSONKeyTable<Key: JSONObjectKey>: Sendable {
    private struct Entry: Sendable {
        var key: Key
        var index: Int
        var fingerprint: UInt64
        var name: [UInt8]
    }

    private static var slotBits: UInt64 { 7 }
    private let slots: [Entry?]
    private let multiplier: UInt64
    private let entries: [Entry]

    package init(_: Key.Type) {
        entries = Key.allCases.enumerated().map { index, key in
            let name = Array(key.rawValue.utf8)
            return Entry(key: key, index: index, fingerprint: name.withUnsafeBufferPointer(JSONKey.fingerprint(of:)), name: name)
        }
        precondition(entries.count <= 64, "known keys are marked as seen in a UInt64")
        // Two names of one length that share their first 7 bytes (computed_at,
        // computed_by) share a fingerprint: no multiplier parts them, and the
        // search below would never end.
        precondition(Set(entries.map(\.fingerprint)).count == entries.count, "known keys must differ in length or in their first 7 bytes")
        // Odd multipliers from a fixed sequence, so every run builds the same table.
        var candidate: UInt64 = 0x9E37_79B9_7F4A_7C15
        while true {
            var slots = [Entry?](repeating: nil, count: 1 << Self.slotBits)
            let fits = entries.allSatisfy { entry in
                let slot = Self.slot(entry.fingerprint, candidate)
                guard slots[slot] == nil else { return false }
                slots[slot] = entry
                return true
            }
            if fits {
                self.slots = slots
                multiplier = candidate
                return
            }
            candidate = candidate &* 0x5851_F42D_4C95_7F2D &+ 2
        }
    }

    private static func slot(_ fingerprint: UInt64, _ multiplier: UInt64) -> Int {
        Int(truncatingIfNeeded: (fingerprint &* multiplier) >> (64 - slotBits))
    }

    /// The known key `key` is, with its position (its bit in a seen-mask).
    @inline(__always)
    func match(_ key: JSONKey) -> (key: Key, index: Int)? {
        guard !key.escaped else {
            let value = key.value
            return entries.first { $0.name == value }.map { ($0.key, $0.index) }
        }
        let fingerprint = JSONKey.fingerprint(of: key.bytes)
        guard let entry = slots[Self.slot(fingerprint, multiplier)], entry.fingerprint == fingerprint else { return nil }
        guard key.bytes.count <= 7 || entry.name.withUnsafeBufferPointer({ JSONString.same($0, key.bytes) }) else { return nil }
        return (entry.key, entry.index)
    }
}
