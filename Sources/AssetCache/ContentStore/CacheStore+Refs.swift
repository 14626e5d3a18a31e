#if canImport(Glibc)
import Glibc
#endif

/// Reading refs and trees, and the two changes to a ref that are not commits: its last use
/// (the LRU clock) and a ref dropped because its server said the asset is gone.
extension CacheStore {
    package func readRef(for url: AssetURL) -> AssetRef? {
        readRef(named: refName(for: url))
    }

    /// A ref read without following a link, as the last 304 confirmed it
    /// (``Revalidation``); nil when absent or unreadable.
    func readRef(named name: String) -> AssetRef? {
        guard let bytes = refs.contents(of: name) else {
            noteLink(name, in: refs, where: "a ref")
            return nil
        }
        return AssetRef(json: bytes).map { confirmed($0, named: name) }
    }

    /// Whether the tree of `sha256` is in `shard`. Anything else under its name
    /// (a link, a file) is removed as itself, never followed, and logged.
    func treeIsPresent(_ sha256: String, in shard: Directory) -> Bool {
        if let info = shard.status(sha256), info.st_mode & S_IFMT != S_IFDIR {
            logger.warning("removed \(shard.path(of: sha256)): not a directory where the cache keeps a tree; it was not followed")
            shard.unlink(sha256)
        }
        return shard.isDirectory(sha256)
    }

    /// The ref's mtime is the LRU clock (as in Bazel's disk cache): a run
    /// records the use of every ref it uses, to within ``lastUseGranularity``.
    package func touchRef(for url: AssetURL, now: Double) {
        touchRef(named: refName(for: url), now: now)
    }

    /// A use is recorded only when the ref's mtime is a granule or more from
    /// `now` (before it, or after it for a clock set back): each touch dirties
    /// an inode the filesystem journals, and a run every 30 minutes of an
    /// unchanged manifest would otherwise rewrite every ref's inode every time
    /// (docs/cache-format.md#eviction).
    func touchRef(named name: String, now: Double) {
        if let info = refs.status(name), abs(now - LibC.modificationTime(info)) < Self.lastUseGranularity { return }
        refs.touch(name)
    }

    /// A day: eviction orders refs whose uses are a day or more apart exactly,
    /// and those within a day of each other roughly; a run of an unchanged
    /// manifest every 30 minutes touches each ref once a day, not 48 times.
    package static let lastUseGranularity: Double = 24 * 60 * 60

    /// The server said the asset is gone; its object stays until `gc` sweeps it.
    package func dropRef(for url: AssetURL) {
        refs.unlink(refName(for: url))
    }
}
