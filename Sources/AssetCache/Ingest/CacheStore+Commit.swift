#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

extension CacheStore {
    /// Moves a finished download into `objects/`. Identical bytes already stored
    /// under another URL are kept and the new copy dropped: one object per content.
    package func commitObject(from temporary: FileLocation, sha256: String) throws(StoreError) -> String {
        do throws(FileSystem.Failure) {
            let shard = try makeShard(of: sha256, in: objects)
            createLease(sha256)
            noteLink(sha256, in: shard, where: "an object")
            if shard.isFile(sha256) {
                temporary.directory.unlink(temporary.name)
                // Another commit may have renamed it a moment ago and not synced
                // the shard yet: it must be durable before a ref names it.
                try shard.sync()
                return objectPath(sha256)
            }
            // Synced and made read-only through its own descriptor: the mode
            // lands on this file, wherever its name may point by now.
            let fd = try temporary.directory.openFile(temporary.name, O_RDONLY)
            defer { close(fd) }
            guard fsync(fd) == 0 else { throw FileSystem.Failure(operation: "fsync", path: temporary.path, code: errno) }
            guard fchmod(fd, 0o444) == 0 else { throw FileSystem.Failure(operation: "chmod", path: temporary.path, code: errno) }
            try moveIntoShard(temporary, shard, as: sha256)
        } catch {
            throw StoreError(error, root: directory.path)
        }
        return objectPath(sha256)
    }

    /// Written last: once a ref names an object, the object is already durable.
    package func writeRef(_ ref: AssetRef, for url: AssetURL) throws(StoreError) {
        let bytes = try encode(ref, for: url)
        do throws(FileSystem.Failure) {
            try FileSystem.writeAtomically(bytes, to: refs, as: refName(for: url), temporary: tmp, mode: Self.privateFileMode)
        } catch {
            throw StoreError(error, root: directory.path)
        }
    }

    func encode(_ ref: AssetRef, for url: AssetURL) throws(StoreError) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            return try Array(encoder.encode(ref))
        } catch {
            throw .io("encoding the ref of \(url): \(error)")
        }
    }

    /// The rename is the commit; syncing the shard makes it survive power loss.
    /// Here every object, tree file and directory is synced on its own, which is
    /// right for the one manifest a run fetches; a run's assets are committed in
    /// batches instead (``CommitBatch``).
    private func moveIntoShard(_ temporary: FileLocation, _ shard: Directory, as name: String) throws(FileSystem.Failure) {
        try temporary.directory.rename(temporary.name, to: shard, as: name)
        try shard.sync()
    }
}
