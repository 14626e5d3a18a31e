import Glibc

/// What the cache holds, as `status` reports it and eviction counts it: the budget
/// covers objects and trees.
public struct CacheUsage: Sendable, Equatable {
    public init() {}

    public var objects = 0
    public var objectBytes: Int64 = 0
    public var trees = 0
    public var treeBytes: Int64 = 0
    public var refs = 0

    public var bytes: Int64 { objectBytes + treeBytes }
}

extension CacheStore {
    public func usage() -> CacheUsage {
        var usage = CacheUsage()
        for sha in objectNames() {
            usage.objects += 1
            usage.objectBytes += FileSystem.size(objectPath(sha)) ?? 0
        }
        for sha in treeNames() {
            usage.trees += 1
            usage.treeBytes += FileSystem.treeSize(treePath(sha))
        }
        usage.refs = refNames().count
        return usage
    }

    /// Names of `objects/ab/<sha>` files, i.e. the SHA-256 of each.
    func objectNames() -> [String] { shardedNames(objectsDirectory) }
    func treeNames() -> [String] { shardedNames(treesDirectory) }

    /// `refs/<sha256(url)>.json` file names.
    func refNames() -> [String] {
        FileSystem.entries(refsDirectory).filter { $0.hasSuffix(".json") }
    }

    private func shardedNames(_ directory: String) -> [String] {
        FileSystem.entries(directory).flatMap { shard in
            FileSystem.entries("\(directory)/\(shard)").filter { $0.count == 64 && $0.hasPrefix(shard) }
        }
    }
}

extension FileSystem {
    static func treeSize(_ path: String) -> Int64 {
        guard isDirectory(path) else { return size(path) ?? 0 }
        return entries(path).reduce(0) { $0 + treeSize("\(path)/\($1)") }
    }

    static func modificationTime(_ path: String) -> Double? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
    }
}
