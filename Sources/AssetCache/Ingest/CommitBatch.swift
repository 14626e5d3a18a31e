#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The steps of one group commit, in the only order that survives a power cut
/// at any moment:
///
/// 1. every ref is written to a file in `tmp/`, beside the downloads and trees
///    (``stage(_:)``, as each asset arrives);
/// 2. one flush makes all of that data durable;
/// 3. objects and trees are renamed into their shards;
/// 4. one flush makes those names durable, and the shards' own;
/// 5. refs are renamed into `refs/`.
///
/// A ref therefore never names an object or tree that a power cut can take back.
/// Refs themselves become durable with the run's closing flush
/// (``GroupCommit/close()``), before its report says anything is ready; until then
/// a cut leaves the old ref or none, and the next run fetches again.
struct CommitBatch: Sendable {
    let store: CacheStore
    let flush: BatchFlush

    /// Step 1 for one entry. A failure is kept in the result: the batch then
    /// removes what the entry left in `tmp/`.
    func stage(_ entry: PendingCommit) -> StagedCommit {
        var staged = StagedCommit(entry: entry)
        do throws(StoreError) {
            let refBytes = try entry.ref.map { ref throws(StoreError) in try store.encode(ref, for: entry.url) }
            do throws(FileSystem.Failure) {
                if let download = entry.download {
                    // Read-only through its own descriptor: the mode lands on
                    // this file, wherever its name may point by now.
                    let fd = try download.directory.openFile(download.name, O_RDONLY)
                    defer { close(fd) }
                    guard fchmod(fd, 0o444) == 0 else { throw FileSystem.Failure(operation: "chmod", path: download.path, code: errno) }
                    staged.objectShard = try store.makeShard(of: entry.sha256, in: store.objects)
                }
                // Before the object is in place: a display app that finds it
                // can lease it at once.
                if entry.download != nil || entry.tree != nil { store.createLease(entry.sha256) }
                if entry.tree != nil {
                    staged.treeShard = try store.makeShard(of: entry.sha256, in: store.trees)
                }
                if let refBytes {
                    staged.refTemporary = try FileSystem.writeTemporary(refBytes, in: store.tmp, mode: CacheStore.privateFileMode, sync: false)
                }
            } catch {
                throw StoreError.written(error)
            }
        } catch {
            staged.failure = error
        }
        return staged
    }

    /// Steps 2 to 5: what became of each entry, in order. A failed entry leaves
    /// nothing behind in `tmp/`; a failed flush fails every entry of the batch.
    func run(_ staged: [StagedCommit]) -> [Result<Void, StoreError>] {
        let planned = plannedMoves(staged)
        var moves = planned.moves
        var published: Set<Int> = []
        defer { removeLeftovers(staged, moves: moves, published: published) }

        // 2. One flush for the data. An object or tree another commit renamed
        // into place may not have its name durable yet: its shard is flushed too.
        let refFiles = staged.compactMap { $0.failure == nil ? $0.refTemporary : nil }.map { FileLocation(store.tmp, $0) }
        do throws(FileSystem.Failure) {
            try flush.flushData(
                files: moves.filter { !$0.isTree }.map(\.from) + refFiles,
                trees: moves.filter(\.isTree).map(\.from),
                directories: withParents(planned.present))
        } catch {
            return staged.map { _ in .failure(StoreError.written(error)) }
        }

        // 3. Renames.
        let renamed = rename(&moves)

        // 4. One flush for the names: the shards', then objects/ and trees/,
        // which hold any shard made since the last flush.
        do throws(FileSystem.Failure) {
            try flush.flushNames(in: withParents(renamed.into))
        } catch {
            return staged.map { _ in .failure(StoreError.written(error)) }
        }

        // 5. Refs.
        return publishRefs(staged, failed: renamed.failed, published: &published)
    }

    /// The objects and trees to rename into their shards, each once (two URLs
    /// with the same bytes share one move), and the shards that hold one
    /// already (another commit's, whose name may not be durable yet).
    private func plannedMoves(_ staged: [StagedCommit]) -> (moves: [Move], present: [String: Directory]) {
        var moves: [Move] = []
        var claimed: Set<String> = []
        var present: [String: Directory] = [:]
        for item in staged where item.failure == nil {
            let entry = item.entry
            if let download = entry.download, let shard = item.objectShard {
                store.noteLink(entry.sha256, in: shard, where: "an object")
                if shard.isFile(entry.sha256) {
                    present[shard.path] = shard
                } else if claimed.insert(shard.path(of: entry.sha256)).inserted {
                    moves.append(Move(from: download, shard: shard, name: entry.sha256, isTree: false))
                }
            }
            if let tree = entry.tree, let shard = item.treeShard {
                if store.treeIsPresent(entry.sha256, in: shard) {
                    present[shard.path] = shard
                } else if claimed.insert(shard.path(of: entry.sha256)).inserted {
                    // The list first: a tree in place always has one; a list
                    // left alone by a power cut is swept by the next scrub.
                    if let digests = entry.treeDigests {
                        moves.append(Move(from: digests, shard: shard, name: entry.sha256 + TreeDigestList.suffix, isTree: false))
                    }
                    moves.append(Move(from: tree, shard: shard, name: entry.sha256, isTree: true))
                }
            }
        }
        return (moves, present)
    }

    /// Step 3: each move renamed into its shard, marked done. `into`: the
    /// shards renamed into; `failed`: why a destination was not, by its path.
    private func rename(_ moves: inout [Move]) -> (into: [String: Directory], failed: [String: StoreError]) {
        var renamedInto: [String: Directory] = [:]
        var failed: [String: StoreError] = [:]
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
                failed[move.destination] = StoreError.written(error)
            }
        }
        return (renamedInto, failed)
    }

    /// Step 5: refs, only for entries whose object and tree are in place (two
    /// URLs with the same bytes share one move, and its failure fails both).
    /// `published`: the entries whose ref was renamed into `refs/`.
    private func publishRefs(
        _ staged: [StagedCommit], failed: [String: StoreError], published: inout Set<Int>
    ) -> [Result<Void, StoreError>] {
        var failures = staged.map(\.failure)
        for (index, item) in staged.enumerated() {
            let entry = item.entry
            let object = entry.download.flatMap { _ in failed[store.objectPath(entry.sha256)] }
            let tree = entry.tree.flatMap { _ in
                failed[store.treePath(entry.sha256)] ?? failed[store.treePath(entry.sha256) + TreeDigestList.suffix]
            }
            if failures[index] == nil, let failure = object ?? tree {
                failures[index] = failure
            }
            guard failures[index] == nil, let temporary = item.refTemporary else { continue }
            let name = store.refName(for: entry.url)
            do throws(FileSystem.Failure) {
                try store.tmp.rename(temporary, to: store.refs, as: name)
                flush.renamed(store.tmp.path(of: temporary), to: store.refs.path(of: name))
                published.insert(index)
            } catch {
                failures[index] = StoreError.written(error)
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

    /// The shards, deepest first, then the directories holding them.
    private func withParents(_ shards: [String: Directory]) -> [Directory] {
        guard !shards.isEmpty else { return [] }
        var parents: [String: Directory] = [:]
        for shard in shards.values {
            let parent = shard.path.hasPrefix(store.trees.path + "/") ? store.trees : store.objects
            parents[parent.path] = parent
        }
        return shards.values.sorted { $0.path > $1.path } + parents.values.sorted { $0.path > $1.path }
    }

    /// Downloads, trees and ref files that did not move: a duplicate, a failure.
    private func removeLeftovers(_ staged: [StagedCommit], moves: [Move], published: Set<Int>) {
        let moved = Set(moves.filter(\.done).map(\.from.path))
        for (index, item) in staged.enumerated() {
            if let download = item.entry.download, !moved.contains(download.path) { download.directory.unlink(download.name) }
            if let tree = item.entry.tree, !moved.contains(tree.path) { try? tree.directory.remove(tree.name) }
            if let digests = item.entry.treeDigests, !moved.contains(digests.path) { digests.directory.unlink(digests.name) }
            // A ref that failed, or whose object or tree did not arrive, is not published.
            if let temporary = item.refTemporary, !published.contains(index) { store.tmp.unlink(temporary) }
        }
    }
}
