#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension CacheStore {
    /// The largest index read: a million messages' worth, and not a byte more of a hostile file.
    static let readinessIndexLimit = 1 << 30

    /// Replaces `readiness.json` as refs are: written in `tmp/`, flushed, renamed
    /// over the old one, the root synced. A reader sees the old file or the new.
    /// Mode 0640 as refs: its URLs may carry tokens. A run's rewrites before its
    /// last leave the root unsynced: after a power cut a reader finds that copy
    /// or an older one, whole either way, and the run's end syncs the last.
    /// Returns the bytes written.
    @discardableResult
    package func writeReadinessIndex(_ index: ReadinessIndex, syncingDirectory: Bool = true) throws(StoreError) -> Int {
        var bytes = 0
        do throws(FileSystem.Failure) {
            let temp = try FileSystem.writeTemporary(in: tmp, mode: Self.privateFileMode) { write in
                withoutActuallyEscaping(write) { write in
                    index.write { piece in
                        bytes += piece.count
                        write(piece)
                    }
                }
            }
            try tmp.rename(temp, to: directory, as: ReadinessIndex.fileName)
            if syncingDirectory { try directory.sync() }
        } catch {
            throw .io(error.description)
        }
        return bytes
    }

    /// The index as the last writer left it; nil when there is none yet.
    /// `only` and `triggers` as ``ReadinessIndex/init(json:only:triggers:)`` takes them.
    public func readReadinessIndex(only: Set<String>? = nil, triggers: Bool = true) throws(ReadinessIndex.ReadError) -> ReadinessIndex? {
        guard directory.status(ReadinessIndex.fileName) != nil else { return nil }
        guard let bytes = directory.contents(of: ReadinessIndex.fileName, limit: Self.readinessIndexLimit) else {
            throw ReadinessIndex.ReadError(description: "it is not a readable regular file of at most \(Self.readinessIndexLimit) bytes")
        }
        return try ReadinessIndex(json: bytes, only: only, triggers: triggers)
    }

    /// After `gc` or `verify --repair` removed files: the index names none of
    /// them any more (``ReadinessIndex/dropping(by:at:exists:)``). An index that
    /// cannot be read is left for the next run to replace, with a warning.
    package func refreshReadinessIndex(by command: String, now: Double = Date().timeIntervalSince1970) throws(StoreError) {
        let index: ReadinessIndex?
        do {
            index = try readReadinessIndex()
        } catch {
            logger.warning("\(directory.path(of: ReadinessIndex.fileName)) was not rewritten: \(error); the next run replaces it")
            return
        }
        guard let index else { return }
        try writeReadinessIndex(index.dropping(by: command, at: now, exists: hasFiles(of:)))
    }

    /// Whether the object (or for a ZIP the tree) an index's asset names is still there.
    func hasFiles(of asset: ReadinessIndex.Asset) -> Bool {
        guard let sha256 = asset.object, sha256.utf8.count == 64 else { return false }
        return asset.kind == .archive ? hasTree(sha256) : hasObject(sha256)
    }

    /// A tree's `index.html`, the page a WebView opens, when it is a file at the tree's root.
    func treeEntry(_ sha256: String) -> String? {
        guard let tree = try? shard(of: sha256, in: trees)?.openDirectory(sha256), tree.isFile("index.html") else { return nil }
        return tree.path(of: "index.html")
    }
}
