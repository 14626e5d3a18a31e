#if canImport(Glibc)
import Glibc
#endif

/// What the cache holds, as `status` reports it and eviction counts it: the budget
/// covers objects and trees; `tmp/` (downloads in flight, interrupted ones kept
/// for resume, leftovers a writer sweeps) is counted apart.
public struct CacheUsage: Sendable, Equatable {
    public init() {}

    public var objects = 0
    public var objectBytes: Int64 = 0
    public var trees = 0
    public var treeBytes: Int64 = 0
    public var refs = 0
    public var temporaryBytes: Int64 = 0

    public var bytes: Int64 { objectBytes + treeBytes }
}

extension CacheStore {
    public func usage() -> CacheUsage {
        var usage = CacheUsage()
        for (_, bytes) in objectSizes() {
            usage.objects += 1
            usage.objectBytes += bytes
        }
        for sha in treeNames() {
            usage.trees += 1
            usage.treeBytes += treeSize(sha)
        }
        usage.refs = refNames().count
        usage.temporaryBytes = tmp.treeSize()
        return usage
    }

    /// Names of `objects/ab/<sha>` entries, i.e. the SHA-256 of each.
    func objectNames() -> [String] { shardedNames(objects) }
    func treeNames() -> [String] { shardedNames(trees) }

    /// `refs/<sha256(url)>.json` names.
    func refNames() -> [String] {
        refs.entries().filter { $0.hasSuffix(".json") }
    }

    /// Every object's size, each shard opened once; entries that are not regular
    /// files count 0 (``verify`` names them).
    func objectSizes() -> [String: Int64] {
        var sizes: [String: Int64] = [:]
        for name in objects.entries() where name.utf8.count == 2 {
            guard let shard = shard(of: name, in: objects) else { continue }
            for sha in shard.entries() where sha.count == 64 && sha.hasPrefix(name) {
                let info = shard.status(sha)
                sizes[sha] = info.map { $0.st_mode & S_IFMT == S_IFREG ? Int64($0.st_size) : 0 } ?? 0
            }
        }
        return sizes
    }

    /// Bytes of a stored object; nil when it is not a regular file.
    func objectSize(_ sha256: String) -> Int64? {
        guard let info = shard(of: sha256, in: objects)?.status(sha256), info.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int64(info.st_size)
    }

    /// Bytes of the files of an unpacked tree, at any depth. A file a newer
    /// version's tree links (``PreviousTree``) counts in each tree that holds
    /// it: the budget counts what each tree needs, so the disk holds at most it.
    func treeSize(_ sha256: String) -> Int64 {
        openTree(sha256)?.treeSize() ?? 0
    }

    /// The unpacked tree of `sha256`, open; nil when it is absent (or a link).
    func openTree(_ sha256: String) -> Directory? {
        try? shard(of: sha256, in: trees)?.openDirectory(sha256)
    }

    func hasObject(_ sha256: String) -> Bool { has(sha256, in: objects, where: "an object") { $0.isFile(sha256) } }
    func hasTree(_ sha256: String) -> Bool { has(sha256, in: trees, where: "a tree") { $0.isDirectory(sha256) } }

    /// The kinds of each ref whose file is there (nil refs have none): the
    /// object for an image or a file, the unpacked tree for an archive (see
    /// ``available(_:)``). Each shard is opened once for all the refs that name
    /// something in it: a plan looks up hundreds.
    func present(_ refs: [AssetRef?]) -> [AssetKinds] {
        var byShard: [ShardName: [Int]] = [:]
        for (index, ref) in refs.enumerated() {
            guard let ref else { continue }
            let kinds = ref.passedKinds
            let prefix = String(ref.object.prefix(2))
            if kinds.contains(.archive) { byShard[ShardName(archive: true, prefix: prefix), default: []].append(index) }
            if kinds.contains(.image) || kinds.contains(.file) {
                byShard[ShardName(archive: false, prefix: prefix), default: []].append(index)
            }
        }
        var present = [AssetKinds](repeating: AssetKinds(), count: refs.count)
        for (name, indices) in byShard {
            let (parent, what) = name.archive ? (trees, "a tree") : (objects, "an object")
            guard let shard = shard(of: name.prefix, in: parent) else { continue }
            for index in indices {
                guard let ref = refs[index] else { continue }
                let found = name.archive ? shard.isDirectory(ref.object) : shard.isFile(ref.object)
                if found {
                    for kind in ref.passedKinds where (kind == .archive) == name.archive { present[index].insert(kind) }
                } else {
                    noteLink(ref.object, in: shard, where: what)
                }
            }
        }
        return present
    }

    /// The kinds of `ref` whose file is there: ``present(_:)`` for one ref.
    func available(_ ref: AssetRef) -> AssetKinds {
        let kinds = ref.passedKinds
        var found = AssetKinds()
        if kinds.contains(.archive), hasTree(ref.object) { found.insert(.archive) }
        if kinds.contains(.image) || kinds.contains(.file), hasObject(ref.object) {
            for kind in kinds where kind != .archive { found.insert(kind) }
        }
        return found
    }

    private struct ShardName: Hashable {
        var archive: Bool
        var prefix: String
    }

    private func has(_ sha256: String, in parent: Directory, where what: String, _ present: (Directory) -> Bool) -> Bool {
        guard let shard = shard(of: sha256, in: parent) else { return false }
        if present(shard) { return true }
        noteLink(sha256, in: shard, where: what)
        return false
    }

    private func shardedNames(_ directory: Directory) -> [String] {
        directory.entries().flatMap { shard in
            shard.utf8.count == 2 ? directory.entries(of: shard).filter { $0.count == 64 && $0.hasPrefix(shard) } : []
        }
    }
}

extension CacheStore {
    /// A small object read whole (a cached manifest); nil when absent or over `limit`.
    func objectContents(_ sha256: String, limit: Int = Manifest.maxSize) -> [UInt8]? {
        shard(of: sha256, in: objects)?.contents(of: sha256, limit: limit)
    }
}
