#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Glibc

extension CacheStore {
    /// Moves a finished download into `objects/`. Identical bytes already stored
    /// under another URL are kept and the new copy dropped: one object per content.
    package func commitObject(from temporary: String, sha256: String) throws(StoreError) -> String {
        let destination = objectPath(sha256)
        do {
            if FileSystem.exists(destination) {
                unlink(temporary)
                // Another commit may have renamed it a moment ago and not synced
                // the shard yet: it must be durable before a ref names it.
                try FileSystem.fsync(path: FileSystem.parent(of: destination), directory: true)
                return destination
            }
            try FileSystem.fsync(path: temporary)
            try FileSystem.chmod(temporary, 0o444)
            try moveIntoShard(temporary, destination)
        } catch {
            throw .io(error.description)
        }
        return destination
    }

    /// Moves a fully unpacked tree into `trees/`; its presence there means complete.
    package func commitTree(from temporary: String, sha256: String) throws(StoreError) -> String {
        let destination = treePath(sha256)
        do {
            if !FileSystem.exists(destination) {
                try syncTree(temporary)
                do {
                    try moveIntoShard(temporary, destination)
                    return destination
                } catch where (error.code == ENOTEMPTY || error.code == EEXIST) && FileSystem.isDirectory(destination) {
                    // The same ZIP under another URL was committed at the same moment.
                }
            }
            FileSystem.remove(temporary)
            // As for objects: durable before a ref names it, whoever renamed it.
            try FileSystem.fsync(path: FileSystem.parent(of: destination), directory: true)
        } catch {
            throw .io(error.description)
        }
        return destination
    }

    /// Written last: once a ref names an object, the object is already durable.
    package func writeRef(_ ref: AssetRef, for url: AssetURL) throws(StoreError) {
        let bytes = try encode(ref, for: url)
        do throws(FileSystem.Failure) {
            try FileSystem.writeAtomically(bytes, to: refPath(for: url), tempDirectory: tmpDirectory)
        } catch {
            throw .io(error.description)
        }
    }

    /// A ref that replaces one naming the same, already durable object (after a
    /// 304): written and synced, then renamed over the old one; the `refs/`
    /// directory is synced once for all of them by ``syncRefs()`` before the run
    /// ends. Until then a crash can only leave the old ref, which is still right.
    func replaceRef(_ ref: AssetRef, for url: AssetURL) throws(StoreError) {
        let bytes = try encode(ref, for: url)
        do throws(FileSystem.Failure) {
            let temporary = try FileSystem.writeTemporary(bytes, in: tmpDirectory)
            try FileSystem.rename(temporary, to: refPath(for: url))
        } catch {
            throw .io(error.description)
        }
    }

    /// Makes the renames of ``replaceRef(_:for:)`` durable.
    func syncRefs() throws(StoreError) {
        do throws(FileSystem.Failure) {
            try FileSystem.fsync(path: refsDirectory, directory: true)
        } catch {
            throw .io(error.description)
        }
    }

    private func encode(_ ref: AssetRef, for url: AssetURL) throws(StoreError) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            return try Array(encoder.encode(ref))
        } catch {
            throw .io("encoding the ref of \(url): \(error)")
        }
    }

    package func readRef(for url: AssetURL) -> AssetRef? {
        guard let data = FileManager.default.contents(atPath: refPath(for: url)) else { return nil }
        return try? JSONDecoder().decode(AssetRef.self, from: data)
    }

    /// The rename is the commit; syncing the shard makes it survive power loss.
    /// Every object, tree file and directory is synced on its own: the simplest
    /// order that is obviously right. The benchmark (bench/) showed these syncs
    /// dominating a cold run while they ran on the two validation threads; they now
    /// run many at once on the commit pool, which was enough. Batching them with
    /// syncfs(2) was tried and dropped: it writes every dirty page of the
    /// filesystem, so each asset waited for all the downloads still arriving.
    private func moveIntoShard(_ temporary: String, _ destination: String) throws(FileSystem.Failure) {
        let shard = FileSystem.parent(of: destination)
        try FileSystem.makeDirectory(shard)
        try FileSystem.rename(temporary, to: destination)
        try FileSystem.fsync(path: shard, directory: true)
    }

    /// Every file and directory of a tree is synced before the tree is renamed into
    /// place, so a tree in `trees/` survives power loss whole.
    private func syncTree(_ path: String) throws(FileSystem.Failure) {
        if FileSystem.isDirectory(path) {
            for name in FileSystem.entries(path) { try syncTree("\(path)/\(name)") }
            try FileSystem.fsync(path: path, directory: true)
        } else {
            try FileSystem.fsync(path: path)
        }
    }
}

extension CacheStore {
    /// The ref's mtime is the LRU clock (as in Bazel's disk cache): a run touches
    /// every ref it uses.
    package func touchRef(for url: AssetURL) {
        _ = utimensat(AT_FDCWD, refPath(for: url), nil, 0)
    }

    /// The server said the asset is gone; its object stays until `gc` sweeps it.
    package func dropRef(for url: AssetURL) {
        unlink(refPath(for: url))
    }
}
