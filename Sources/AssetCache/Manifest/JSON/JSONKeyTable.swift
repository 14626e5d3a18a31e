/// The keys a document knows in one kind of object, as an enum whose raw values
/// are the JSON names: ``JSONReader/object(_:_:)`` hands each member over as
/// one of them (nil for a key it does not know), matched on the key's bytes.
package protocol JSONObjectKey: RawRepresentable<String>, CaseIterable, Sendable {
    /// `JSONKeyTable(Self.self)`, made once.
    static var table: JSONKeyTable<Self> { get }
}

/// Finds a key among a few known ones with one integer comparison each: the
/// length and first bytes of every name, packed as ``JSONKey/fingerprint`` does;
/// only a name longer than that is then compared byte for byte.
package struct JSONKeyTable<Key: JSONObjectKey>: Sendable {
    private let keys: [Key]
    private let names: [[UInt8]]
    private let fingerprints: [UInt64]

    package init(_: Key.Type) {
        keys = Array(Key.allCases)
        names = keys.map { Array($0.rawValue.utf8) }
        fingerprints = names.map { name in name.withUnsafeBufferPointer { JSONKey.fingerprint(of: $0) } }
        precondition(keys.count <= 64, "known keys are marked as seen in a UInt64")
    }

    /// The known key `key` is, with its position (its bit in a seen-mask).
    func match(_ key: JSONKey) -> (key: Key, index: Int)? {
        guard !key.escaped else {
            let value = key.value
            guard let index = names.firstIndex(of: value) else { return nil }
            return (keys[index], index)
        }
        let fingerprint = JSONKey.fingerprint(of: key.bytes)
        for index in fingerprints.indices where fingerprints[index] == fingerprint {
            if key.bytes.count <= 7 || names[index].withUnsafeBufferPointer({ JSONString.same($0, key.bytes) }) {
                return (keys[index], index)
            }
        }
        return nil
    }
}
