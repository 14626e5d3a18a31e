#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Glibc

/// The steps of one group commit, in the only order that survives a power cut
/// at any moment:
///
/// 1. every ref is written to a file in `tmp/`, beside the downloads and trees;
/// 2. one flush makes all of that data durable;
/// 3. objects and trees are renamed into their shards;
/// 4. one flush makes those names durable;
/// 5. refs are renamed into `refs/`.
///
/// A ref therefore never names an object or tree that a power cut can take back.
/// Refs themselves become durable with the run's closing flush
/// (``GroupCommit/close()``), before its report says anything is ready; until then
/// a cut leaves the old ref or none, and the next run fetches again.
struct CommitBatch: Sendable {
    let store: CacheStore
    let flush: BatchFlush

    /// What became of each entry, in order. A failed entry leaves nothing behind
    /// in `tmp/`; a failed flush fails every entry of the batch.
    func run(_ entries: [PendingCommit]) -> [Result<Void, StoreError>] {
        var failures = [StoreError?](repeating: nil, count: entries.count)
        var moves: [Move] = []
        var claimed: Set<String> = []
        var present: [String: Directory] = [:]
        /// objects/ or trees/ when a shard was made in it: its new name is flushed too.
        var parentsOfNewShards: [String: Directory] = [:]
        var refTemporaries: [Int: String] = [:]
        defer { removeLeftovers(entries, moves: moves, refTemporaries: refTemporaries) }

        // 1. Stage: what moves where, and the refs' bytes in tmp/.
        for (index, entry) in entries.enumerated() {
            var refBytes: [UInt8]?
            if let ref = entry.ref {
                do throws(StoreError) {
                    refBytes = try store.encode(ref, for: entry.url)
                } catch {
                    failures[index] = error
                    continue
                }
            }
            do throws(FileSystem.Failure) {
                if let download = entry.download {
                    let shard = try shard(of: entry.sha256, in: store.objects, new: &parentsOfNewShards)
                    store.noteLink(entry.sha256, in: shard, where: "an object")
                    if shard.isFile(entry.sha256) {
                        present[shard.path] = shard
                    } else if !claimed.contains(shard.path(of: entry.sha256)) {
                        // Read-only through its own descriptor: the mode lands on
                        // this file, wherever its name may point by now.
                        let fd = try download.directory.openFile(download.name, O_RDONLY)
                        defer { close(fd) }
                        guard fchmod(fd, 0o444) == 0 else { throw FileSystem.Failure(operation: "chmod", path: download.path, code: errno) }
                        moves.append(Move(from: download, shard: shard, name: entry.sha256, isTree: false))
                        claimed.insert(shard.path(of: entry.sha256))
                    }
                }
                if let tree = entry.tree {
                    let shard = try shard(of: entry.sha256, in: store.trees, new: &parentsOfNewShards)
                    if store.treeIsPresent(entry.sha256, in: shard) {
                        present[shard.path] = shard
                    } else if !claimed.contains(shard.path(of: entry.sha256)) {
                        moves.append(Move(from: tree, shard: shard, name: entry.sha256, isTree: true))
                        claimed.insert(shard.path(of: entry.sha256))
                    }
                }
                if let refBytes {
                    refTemporaries[index] = try FileSystem.writeTemporary(refBytes, in: store.tmp, mode: CacheStore.privateFileMode, sync: false)
                }
            } catch {
                failures[index] = .io(error.description)
            }
        }

        // 2. One flush for the data. An object or tree another run renamed into
        // place may not have its name durable yet: its shard is flushed too.
        do throws(FileSystem.Failure) {
            try flush.flushData(
                files: moves.filter { !$0.isTree }.map(\.from) + refTemporaries.values.map { FileLocation(store.tmp, $0) },
                trees: moves.filter(\.isTree).map(\.from),
                directories: Array(present.values))
        } catch {
            return entries.map { _ in .failure(.io(error.description)) }
        }

        // 3. Renames.
        var renamedInto = parentsOfNewShards
        var failed: [String: String] = [:]
        for index in moves.indices {
            let move = moves[index]
            do throws(FileSystem.Failure) {
                try move.from.directory.rename(move.from.name, to: move.shard, as: move.name)
                flush.renamed(move.from.path, to: move.destination)
                moves[index].done = true
                renamedInto[move.shard.path] = move.shard
            } catch where move.isTree && (error.code == ENOTEMPTY || error.code == EEXIST) && move.shard.isDirectory(move.name) {
                // An urgent commit of the same ZIP got there first; this copy goes.
                renamedInto[move.shard.path] = move.shard
            } catch {
                failed[move.destination] = error.description
            }
        }

        // 4. One flush for the names.
        do throws(FileSystem.Failure) {
            try flush.flushNames(in: renamedInto.values.sorted { $0.path > $1.path })
        } catch {
            return entries.map { _ in .failure(.io(error.description)) }
        }

        // 5. Refs, only for entries whose object and tree are in place (two URLs
        // with the same bytes share one move, and its failure fails both).
        for (index, entry) in entries.enumerated() {
            let object = entry.download.flatMap { _ in failed[store.objectPath(entry.sha256)] }
            let tree = entry.tree.flatMap { _ in failed[store.treePath(entry.sha256)] }
            if failures[index] == nil, let failure = object ?? tree {
                failures[index] = .io(failure)
            }
            guard failures[index] == nil, let temporary = refTemporaries.removeValue(forKey: index) else { continue }
            let name = store.refName(for: entry.url)
            do throws(FileSystem.Failure) {
                try store.tmp.rename(temporary, to: store.refs, as: name)
                flush.renamed(store.tmp.path(of: temporary), to: store.refs.path(of: name))
            } catch {
                failures[index] = .io(error.description)
                refTemporaries[index] = temporary
            }
        }
        return failures.map { $0.map { .failure($0) } ?? .success(()) }
    }

    /// Makes every ref published so far durable. Their bytes were flushed with
    /// their batches: only the names in `refs/` are left, and an fsync of that one
    /// directory does not wait, as syncfs would, for whatever else the
    /// filesystem has to write.
    func flushRefs() throws(FileSystem.Failure) {
        try flush.flushDirectory(store.refs)
    }

    private struct Move {
        var from: FileLocation
        var shard: Directory
        var name: String
        var isTree: Bool
        var done = false
        var destination: String { shard.path(of: name) }
    }

    /// The shard of `sha256`, made if absent; then its parent goes in
    /// `parentsOfNew`, whose names are flushed with the batch's renames.
    private func shard(of sha256: String, in parent: Directory, new parentsOfNew: inout [String: Directory]) throws(FileSystem.Failure) -> Directory {
        let existed = parent.isDirectory(String(sha256.prefix(2)))
        let shard = try store.makeShard(of: sha256, in: parent)
        if !existed { parentsOfNew[parent.path] = parent }
        return shard
    }

    /// Downloads, trees and ref files that did not move: a duplicate, a failure.
    private func removeLeftovers(_ entries: [PendingCommit], moves: [Move], refTemporaries: [Int: String]) {
        let moved = Set(moves.filter(\.done).map(\.from.path))
        for entry in entries {
            if let download = entry.download, !moved.contains(download.path) { download.directory.unlink(download.name) }
            if let tree = entry.tree, !moved.contains(tree.path) { try? tree.directory.remove(tree.name) }
        }
        for temporary in refTemporaries.values { store.tmp.unlink(temporary) }
    }
}
