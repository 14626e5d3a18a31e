/// A set of ``AssetKind``s: the kinds a manifest uses one URL as, or the kinds
/// whose checks one stored body passed (docs/cache-format.md). A body that
/// decodes as an image is not thereby a ZIP, nor the other way round, so what
/// is known of a URL is known per kind.
///
/// Iterated in ``AssetKind/allCases`` order whatever order the kinds were added
/// in, so that nothing built from a set (a report's entries, a ref's `kinds`)
/// depends on the order of a manifest.
package struct AssetKinds: Sendable, Hashable, Sequence {
    private var bits: UInt8 = 0

    package init() {}

    package init(_ kind: AssetKind) {
        insert(kind)
    }

    package init<Kinds: Sequence>(_ kinds: Kinds) where Kinds.Element == AssetKind {
        for kind in kinds { insert(kind) }
    }

    private static func bit(_ kind: AssetKind) -> UInt8 {
        switch kind {
        case .image: 1
        case .archive: 2
        case .file: 4
        }
    }

    package mutating func insert(_ kind: AssetKind) {
        bits |= Self.bit(kind)
    }

    package func contains(_ kind: AssetKind) -> Bool {
        bits & Self.bit(kind) != 0
    }

    package func isSuperset(of other: AssetKinds) -> Bool {
        bits & other.bits == other.bits
    }

    package func intersection(_ other: AssetKinds) -> AssetKinds {
        var both = AssetKinds()
        both.bits = bits & other.bits
        return both
    }

    package var isEmpty: Bool { bits == 0 }
    package var count: Int { bits.nonzeroBitCount }
    package var first: AssetKind? { AssetKind.allCases.first(where: contains) }

    package func makeIterator() -> IndexingIterator<[AssetKind]> {
        AssetKind.allCases.filter(contains).makeIterator()
    }
}
