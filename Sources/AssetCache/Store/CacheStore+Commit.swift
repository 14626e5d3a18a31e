import Foundation
import Glibc

extension CacheStore {
    /// Moves a finished download into `objects/`. Identical bytes already stored
    /// under another URL are kept and the new copy dropped: one object per content.
    public func commitObject(from temporary: String, sha256: String) throws(StoreError) -> String {
        let destination = objectPath(sha256)
        do {
            if FileSystem.exists(destination) {
                unlink(temporary)
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
    public func commitTree(from temporary: String, sha256: String) throws(StoreError) -> String {
        let destination = treePath(sha256)
        do {
            if FileSystem.exists(destination) {
                FileSystem.remove(temporary)
                return destination
            }
            try syncTree(temporary)
            try moveIntoShard(temporary, destination)
        } catch {
            throw .io(error.description)
        }
        return destination
    }

    /// Written last: once a ref names an object, the object is already durable.
    public func writeRef(_ ref: AssetRef, for url: AssetURL) throws(StoreError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            let bytes = try Array(encoder.encode(ref))
            try FileSystem.writeAtomically(bytes, to: refPath(for: url), tempDirectory: tmpDirectory)
        } catch let error as FileSystem.Failure {
            throw .io(error.description)
        } catch {
            throw .io("encoding the ref of \(url): \(error)")
        }
    }

    public func readRef(for url: AssetURL) -> AssetRef? {
        guard let data = FileManager.default.contents(atPath: refPath(for: url)) else { return nil }
        return try? JSONDecoder().decode(AssetRef.self, from: data)
    }

    /// The rename is the commit; syncing the shard makes it survive power loss.
    /// Every object, tree file and directory is synced on its own rather than in a
    /// batch: it is the simplest order that is obviously right, and on loopback the
    /// syncs cost little next to validation. If the benchmark (bench/) shows them
    /// dominating a cold run, batch them per run with syncfs(2) before the refs.
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
    public func touchRef(for url: AssetURL) {
        _ = utimensat(AT_FDCWD, refPath(for: url), nil, 0)
    }

    /// The server said the asset is gone; its object stays until `gc` sweeps it.
    public func dropRef(for url: AssetURL) {
        unlink(refPath(for: url))
    }
}
