#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How much of the cache each run re-reads (docs/cache-format.md#scrub): the
/// larger of `percent` of the cache's bytes and `minimumBytes`. With the
/// defaults every object and tree is re-read within ⌈100 / 3⌉ = 34 runs, 17
/// hours at the timer's 30 minutes, and a cache of up to 64 MiB on every run.
public struct ScrubPolicy: Sendable, Equatable {
    public var minimumBytes: Int64
    public var percent: Int

    public init(minimumBytes: Int64 = 64 << 20, percent: Int = 3) {
        self.minimumBytes = max(0, minimumBytes)
        self.percent = min(100, max(0, percent))
    }

    public static let off = ScrubPolicy(minimumBytes: 0, percent: 0)

    public var isOff: Bool { minimumBytes == 0 && percent == 0 }

    /// Bytes to re-read from a cache of `cacheBytes`.
    public func slice(ofCache cacheBytes: Int64) -> Int64 {
        max(minimumBytes, cacheBytes / 100 * Int64(percent))
    }
}

/// What one scrub read and found. Damaged entries are removed, with the refs
/// that name them, so the run fetches them again — but those a display app
/// leases (``CacheProblem/leased``).
public struct ScrubResult: Sendable, Equatable {
    public var objects = 0
    public var trees = 0
    public var bytesRead: Int64 = 0
    /// Objects and trees in the cache before the scrub, and their bytes.
    public var entries = 0
    public var cacheBytes: Int64 = 0
    public var damaged: [CacheProblem] = []
    /// Where the next scrub goes on; nil when this one read nothing.
    package var position: ScrubPosition?

    public init() {}
}

/// Where the scrub goes on, in `state.json`: entries are re-read in the order
/// of their names (an object's SHA-256, a tree's followed by `/`), a slice per
/// run from the one after `after`, around and around, as ZFS's scrub keeps a
/// cursor rather than a time per block. `recheck` are entries found damaged
/// but left for a display app's lease: re-read first. Losing it costs only an
/// early re-read.
package struct ScrubPosition: Codable, Equatable, Sendable {
    var after: String
    var recheck: [String] = []

    /// The name an entry has in this order.
    static func key(_ sha: String, isTree: Bool) -> String { isTree ? sha + "/" : sha }
}

extension CacheStore {
    /// Re-reads the slice of objects and trees that comes next after
    /// `position` (``ScrubPosition``), as ZFS and Ceph scrub: an object must
    /// still hash to its name, a tree's files to its digest list. What is
    /// damaged goes, with the refs that name it. The result says where the
    /// next scrub goes on; the run writes that with its state. Only a writer
    /// holding the lock may scrub.
    package func scrub(_ policy: ScrubPolicy, from position: ScrubPosition?) -> ScrubResult {
        var result = ScrubResult()
        guard !policy.isOff else { return result }
        var entries: [(key: String, sha: String, isTree: Bool, bytes: Int64)] = []
        for (sha, bytes) in objectSizes() { entries.append((ScrubPosition.key(sha, isTree: false), sha, false, bytes)) }
        let treeNames = treeNames()
        for sha in treeNames { entries.append((ScrubPosition.key(sha, isTree: true), sha, true, treeSize(sha))) }
        entries.sort { $0.key < $1.key }
        result.entries = entries.count
        result.cacheBytes = entries.reduce(0) { $0 + $1.bytes }

        let slice = policy.slice(ofCache: result.cacheBytes)
        // Those gone since (evicted, removed by verify) are forgotten.
        let recheck = Set(position?.recheck ?? []).intersection(entries.map(\.key))
        let start = position.flatMap { after in entries.firstIndex { $0.key > after.after } } ?? 0
        let order = entries.filter { recheck.contains($0.key) }
            + (entries[start...] + entries[..<start]).filter { !recheck.contains($0.key) }
        var planned: Int64 = 0
        var damaged: [String: CacheProblem] = [:]
        var last = position?.after
        var unread = recheck
        for entry in order where planned < slice {
            planned += max(entry.bytes, 1)
            if unread.remove(entry.key) == nil { last = entry.key }
            if entry.isTree {
                let (problem, bytes) = checkTree(entry.sha)
                result.trees += 1
                result.bytesRead += bytes
                if let problem { damaged[entry.sha + "/"] = problem }
            } else {
                let path = objectPath(entry.sha)
                let actual = shard(of: entry.sha, in: objects).flatMap { Self.sha256(ofFile: entry.sha, in: $0) }
                result.objects += 1
                result.bytesRead += actual?.bytes ?? 0
                if actual?.sha256 != entry.sha {
                    let text = actual.map { "content hashes to \($0.sha256)" } ?? "cannot be read (or is not a regular file)"
                    damaged[entry.sha] = problem(
                        actual == nil ? .objectUnreadable : .objectCorrupt, path, text, [.object(entry.sha), .tree(entry.sha)])
                }
            }
        }
        result.damaged = damaged.values.sorted { $0.path < $1.path }
        if !result.damaged.isEmpty { result.damaged = removeDamaged(result.damaged) }
        // One left in place for a lease is re-read first by the next scrub.
        let leased = result.damaged.filter(\.leased).flatMap(\.entries).compactMap { entry -> String? in
            switch entry {
            case .object(let sha): ScrubPosition.key(sha, isTree: false)
            case .tree(let sha): ScrubPosition.key(sha, isTree: true)
            case .ref, .lease: nil
            }
        }
        result.position = last.map { ScrubPosition(after: $0, recheck: (leased + unread).sorted()) }
        sweepLoneDigestLists(trees: Set(treeNames))
        // scrub.json of a release before the position: its times order nothing now.
        _ = directory.unlink(Self.formerScrubRecord)
        return result
    }

    static let formerScrubRecord = "scrub.json"

    /// The entries, and every ref that names one of them: a ref is what makes
    /// a run use a copy, and without it the run fetches the asset again. What
    /// a display app leases stays, with its refs (``remove(_:)``), until a
    /// later scrub finds it released: the problems say which.
    private func removeDamaged(_ problems: [CacheProblem]) -> [CacheProblem] {
        var objectsGone: Set<String> = []
        var treesGone: Set<String> = []
        for problem in problems {
            for entry in problem.entries {
                switch entry {
                case .object(let sha): objectsGone.insert(sha)
                case .tree(let sha): treesGone.insert(sha)
                case .ref, .lease: break
                }
            }
        }
        var refsToDrop: [CacheProblem.Entry] = []
        for name in refNames() {
            guard let ref = readRef(named: name) else { continue }
            if objectsGone.contains(ref.object) || (ref.kind == .archive && treesGone.contains(ref.object)) {
                refsToDrop.append(.ref(name))
            }
        }
        let outcome = removing(problems, and: refsToDrop)
        for problem in outcome {
            if problem.leased {
                logger.warning("scrub: \(problem): left in place, since a display app leases it; a later run's scrub removes it once released")
            } else {
                logger.warning("scrub: \(problem): removed, and fetched again if a message needs it")
            }
        }
        return outcome
    }

    /// A digest list whose tree is gone (a power cut between the two renames
    /// or removals) names nothing.
    private func sweepLoneDigestLists(trees: Set<String>) {
        for prefix in self.trees.entries() where prefix.utf8.count == 2 {
            guard let shard = shard(of: prefix, in: self.trees) else { continue }
            for name in shard.entries() where name.hasSuffix(TreeDigestList.suffix) {
                let sha = String(name.dropLast(TreeDigestList.suffix.count))
                if !trees.contains(sha) && !shard.isDirectory(sha) { shard.unlink(name) }
            }
        }
    }
}
