#if canImport(Glibc)
import Glibc
#endif

/// One object of the cache, as `prefetch ls` lists it: what names it, what it
/// passed as, what it costs the budget, when it was last used, and whether it
/// may be evicted now.
public struct CachedObject: Sendable, Equatable {
    public var sha256: String
    /// The URLs whose refs name it (passwords masked); none for an object that
    /// the next `gc` sweeps.
    public var urls: [String]
    /// The kinds its bytes passed as, in the order `image`, `archive`, `file`.
    public var kinds: [AssetKind]
    /// The object's bytes and, for a ZIP, its unpacked tree's: what it counts against the budget.
    public var bytes: Int64
    public var treeBytes: Int64?
    /// The newest modification time of its refs (the LRU clock), seconds since 1970.
    public var lastUsed: Double?
    /// Named by the readiness index: the current manifest's messages use it.
    public var pinned: Bool
    /// A display app holds its lease now.
    public var leased: Bool
}

extension CacheStore {
    /// Every object and tree of the cache, least recently used first (the
    /// order eviction takes them in), those no ref names first of all.
    /// `pinned` are the SHA-256s the readiness index names.
    public func listing(pinned: Set<String>) -> [CachedObject] {
        var named: [String: (urls: [String], kinds: AssetKinds, used: Double)] = [:]
        for name in refNames() {
            guard let ref = readRef(named: name), let info = refs.status(name) else { continue }
            var entry = named[ref.object] ?? ([], AssetKinds([AssetKind]()), 0)
            entry.urls.append(Redaction.redactingPasswords(in: ref.url))
            entry.kinds = AssetKinds(Array(entry.kinds) + Array(ref.passedKinds))
            entry.used = max(entry.used, LibC.modificationTime(info))
            named[ref.object] = entry
        }
        var sizes = objectSizes()
        let trees = Set(treeNames())
        for sha in trees where sizes[sha] == nil { sizes[sha] = 0 }
        var listing = sizes.map { sha, bytes in
            let entry = named[sha]
            return CachedObject(
                sha256: sha, urls: entry?.urls.sorted() ?? [], kinds: entry.map { Array($0.kinds) } ?? [], bytes: bytes,
                treeBytes: trees.contains(sha) ? treeSize(sha) : nil, lastUsed: entry?.used, pinned: pinned.contains(sha),
                leased: isLeased(sha256: sha))
        }
        listing.sort { ($0.lastUsed ?? -.infinity, $0.sha256) < ($1.lastUsed ?? -.infinity, $1.sha256) }
        return listing
    }
}
