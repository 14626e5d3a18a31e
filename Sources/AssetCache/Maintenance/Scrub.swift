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

    public init() {}
}

/// `scrub.json`: when the scrub last re-read each object and tree. Losing it
/// costs only an early re-read, so it is replaced without a flush of its own.
struct ScrubRecord: Codable, Equatable {
    var objects: [String: Double] = [:]
    var trees: [String: Double] = [:]

    static let fileName = "scrub.json"

    /// Whether this record, made by a scrub with `result`, says something the
    /// stored `old` does not. A scrub that re-read every entry, found nothing
    /// damaged and saw the same entries as `old` leaves `old` in place: while
    /// the cache fits in one slice, every scrub re-reads it all and the times
    /// order nothing, and a small cache then writes no scrub.json per run.
    /// Should the cache outgrow the slice, `old`'s times are earlier than the
    /// last reads, so an entry is re-read sooner than due, never later.
    func isWorthWriting(over old: ScrubRecord, after result: ScrubResult) -> Bool {
        let everyEntryRead = result.objects + result.trees == result.entries
        guard everyEntryRead, result.damaged.isEmpty else { return true }
        return Set(objects.keys) != Set(old.objects.keys) || Set(trees.keys) != Set(old.trees.keys)
    }
}

extension CacheStore {
    /// Re-reads the objects and trees checked longest ago, up to the policy's
    /// slice, as ZFS and Ceph scrub: an object must still hash to its name, a
    /// tree's files to its digest list. What is damaged goes, with the refs
    /// that name it. An entry the scrub has not seen before was hashed as it
    /// arrived: it counts as checked now, and waits its turn behind older ones.
    /// Only a writer holding the lock may scrub.
    package func scrub(_ policy: ScrubPolicy, now: Double) -> ScrubResult {
        var result = ScrubResult()
        guard !policy.isOff else { return result }
        let old = readScrubRecord()
        var record = ScrubRecord()
        var candidates: [(checked: Double, sha: String, isTree: Bool, bytes: Int64)] = []
        for (sha, bytes) in objectSizes() {
            let checked = old.objects[sha] ?? now
            record.objects[sha] = checked
            candidates.append((checked, sha, false, bytes))
        }
        let treeNames = treeNames()
        for sha in treeNames {
            let checked = old.trees[sha] ?? now
            record.trees[sha] = checked
            candidates.append((checked, sha, true, treeSize(sha)))
        }
        result.entries = candidates.count
        result.cacheBytes = candidates.reduce(0) { $0 + $1.bytes }
        candidates.sort { ($0.checked, $0.sha, $0.isTree ? 1 : 0) < ($1.checked, $1.sha, $1.isTree ? 1 : 0) }

        let slice = policy.slice(ofCache: result.cacheBytes)
        var planned: Int64 = 0
        var damaged: [String: CacheProblem] = [:]
        for candidate in candidates where planned < slice {
            planned += max(candidate.bytes, 1)
            if candidate.isTree {
                let (problem, bytes) = checkTree(candidate.sha)
                result.trees += 1
                result.bytesRead += bytes
                record.trees[candidate.sha] = now
                if let problem { damaged[candidate.sha + "/"] = problem }
            } else {
                let path = objectPath(candidate.sha)
                let actual = shard(of: candidate.sha, in: objects).flatMap { Self.sha256(ofFile: candidate.sha, in: $0) }
                result.objects += 1
                result.bytesRead += actual?.bytes ?? 0
                record.objects[candidate.sha] = now
                if actual?.sha256 != candidate.sha {
                    let text = actual.map { "content hashes to \($0.sha256)" } ?? "cannot be read (or is not a regular file)"
                    damaged[candidate.sha] = problem(
                        actual == nil ? .objectUnreadable : .objectCorrupt, path, text, [.object(candidate.sha), .tree(candidate.sha)])
                }
            }
        }
        result.damaged = damaged.values.sorted { $0.path < $1.path }
        if !result.damaged.isEmpty {
            result.damaged = removeDamaged(result.damaged)
            for problem in result.damaged {
                // One left in place for a lease is re-read first by the next scrub.
                let checked: Double? = problem.leased ? 0 : nil
                for case .object(let sha) in problem.entries { record.objects[sha] = checked }
                for case .tree(let sha) in problem.entries { record.trees[sha] = checked }
            }
        }
        sweepLoneDigestLists(trees: Set(treeNames))
        if record.isWorthWriting(over: old, after: result) { writeScrubRecord(record) }
        return result
    }

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

    func readScrubRecord() -> ScrubRecord {
        guard let bytes = directory.contents(of: ScrubRecord.fileName, limit: 64 << 20),
              let record = try? JSONDecoder().decode(ScrubRecord.self, from: Data(bytes)) else { return ScrubRecord() }
        return record
    }

    private func writeScrubRecord(_ record: ScrubRecord) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            let temporary = try FileSystem.writeTemporary(
                Array(try encoder.encode(record)), in: tmp, mode: Self.privateFileMode, sync: false)
            try tmp.rename(temporary, to: directory, as: ScrubRecord.fileName)
        } catch {
            logger.warning("could not write \(ScrubRecord.fileName): \(error); the next scrub starts over")
        }
    }
}
