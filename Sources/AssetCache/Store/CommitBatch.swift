import Foundation
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
        var present: [String] = []
        var refTemporaries: [Int: String] = [:]
        var claimed: Set<String> = []
        defer { removeLeftovers(entries, moves: moves, refTemporaries: refTemporaries) }

        // 1. Stage: what moves where, and the refs' bytes in tmp/.
        for (index, entry) in entries.enumerated() {
            do throws(StoreError) {
                if let download = entry.download {
                    let destination = store.objectPath(entry.sha256)
                    if FileSystem.exists(destination) {
                        present.append(FileSystem.parent(of: destination))
                    } else if !claimed.contains(destination) {
                        try io { () throws(FileSystem.Failure) in try FileSystem.chmod(download, 0o444) }
                        moves.append(Move(entry: index, from: download, to: destination, isTree: false))
                        claimed.insert(destination)
                    }
                }
                if let tree = entry.tree {
                    let destination = store.treePath(entry.sha256)
                    if FileSystem.exists(destination) {
                        present.append(FileSystem.parent(of: destination))
                    } else if !claimed.contains(destination) {
                        moves.append(Move(entry: index, from: tree, to: destination, isTree: true))
                        claimed.insert(destination)
                    }
                }
                if let ref = entry.ref {
                    let bytes = try store.encode(ref, for: entry.url)
                    refTemporaries[index] = try io { () throws(FileSystem.Failure) in
                        try FileSystem.writeTemporary(bytes, in: store.tmpDirectory, sync: false)
                    }
                }
            } catch {
                failures[index] = error
            }
        }

        // 2. One flush for the data. An object or tree another run renamed into
        // place may not have its name durable yet: its shard is flushed too.
        do throws(FileSystem.Failure) {
            try flush.flushData(
                files: moves.filter { !$0.isTree }.map(\.from) + refTemporaries.values,
                trees: moves.filter(\.isTree).map(\.from),
                directories: Array(Set(present)))
        } catch {
            return entries.map { _ in .failure(.io(error.description)) }
        }

        // 3. Renames.
        var shards: Set<String> = []
        var failedDestinations: Set<String> = []
        for index in moves.indices {
            let move = moves[index]
            let shard = FileSystem.parent(of: move.to)
            do throws(FileSystem.Failure) {
                if !FileSystem.exists(shard) {
                    try FileSystem.makeDirectory(shard)
                    // The new shard's own name lives in objects/ or trees/.
                    shards.insert(FileSystem.parent(of: shard))
                }
                do throws(FileSystem.Failure) {
                    try FileSystem.rename(move.from, to: move.to)
                    flush.renamed(move.from, to: move.to)
                    moves[index].done = true
                } catch where move.isTree && (error.code == ENOTEMPTY || error.code == EEXIST) && FileSystem.isDirectory(move.to) {
                    // An urgent commit of the same ZIP got there first; this copy goes.
                }
                shards.insert(shard)
            } catch {
                failures[move.entry] = .io(error.description)
                failedDestinations.insert(move.to)
            }
        }

        // 4. One flush for the names.
        do throws(FileSystem.Failure) {
            try flush.flushNames(in: shards.sorted(by: >))
        } catch {
            return entries.map { _ in .failure(.io(error.description)) }
        }

        // 5. Refs, only for entries whose object and tree are in place: two URLs
        // with the same bytes share one move, and its failure fails both.
        for (index, entry) in entries.enumerated() {
            if failures[index] == nil,
               failedDestinations.contains(store.objectPath(entry.sha256))
                || (entry.tree != nil && failedDestinations.contains(store.treePath(entry.sha256))) {
                failures[index] = .io("the commit of \(entry.sha256) failed for another URL with the same bytes")
            }
            guard failures[index] == nil, let temporary = refTemporaries.removeValue(forKey: index) else { continue }
            let path = store.refPath(for: entry.url)
            do throws(FileSystem.Failure) {
                try FileSystem.rename(temporary, to: path)
                flush.renamed(temporary, to: path)
            } catch {
                failures[index] = .io(error.description)
                refTemporaries[index] = temporary
            }
        }
        return failures.map { $0.map { .failure($0) } ?? .success(()) }
    }

    /// Makes every ref published so far durable.
    func flushRefs() throws(FileSystem.Failure) {
        try flush.flushNames(in: [store.refsDirectory])
    }

    private func io<T>(_ body: () throws(FileSystem.Failure) -> T) throws(StoreError) -> T {
        do {
            return try body()
        } catch {
            throw .io(error.description)
        }
    }

    private struct Move {
        var entry: Int
        var from: String
        var to: String
        var isTree: Bool
        var done = false
    }

    /// Downloads, trees and ref files that did not move: a duplicate, a failure.
    private func removeLeftovers(_ entries: [PendingCommit], moves: [Move], refTemporaries: [Int: String]) {
        let moved = Set(moves.filter(\.done).map(\.from))
        for entry in entries {
            if let download = entry.download, !moved.contains(download) { unlink(download) }
            if let tree = entry.tree, !moved.contains(tree) { FileSystem.remove(tree) }
        }
        for temporary in refTemporaries.values { unlink(temporary) }
    }
}
