import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// One thing `verify` found wrong, and what `--repair` removes for it.
public struct CacheProblem: Sendable, Equatable, CustomStringConvertible {
    /// An entry of the cache that a repair removes.
    package enum Entry: Sendable, Hashable {
        case object(String), tree(String), ref(String), lease(String)
    }

    /// What is wrong, in a word for programs (`verify --json`).
    public enum Kind: String, Sendable {
        case objectCorrupt = "object_corrupt"
        case objectUnreadable = "object_unreadable"
        case treeWithoutObject = "tree_without_object"
        case treeUnsafeEntry = "tree_unsafe_entry"
        case treeUnlisted = "tree_unlisted"
        case treeFileCorrupt = "tree_file_corrupt"
        case treeFileMissing = "tree_file_missing"
        case treeFileUnexpected = "tree_file_unexpected"
        case refUnreadable = "ref_unreadable"
        case refMisnamed = "ref_misnamed"
        case refDangling = "ref_dangling"
        case refTreeMissing = "ref_tree_missing"
        case refSizeMismatch = "ref_size_mismatch"
        case leaseInvalid = "lease_invalid"
    }

    public var kind: Kind
    public var path: String
    public var problem: String
    /// Removed by a repair so that the next run fetches the asset again.
    public var remove: [String]
    package var entries: [Entry]
    /// Left in place by a repair or the scrub: a display app leases what it
    /// names (docs/cache-format.md#leases). A later repair, or the scrub of a
    /// later run, removes it once the lease is gone.
    public var leased = false

    public var description: String { "\(path): \(problem)" }
}

extension CacheStore {
    /// Re-hashes every object and checks every tree and ref (docs/cli.md). An object no
    /// ref names yet — left by a crash between commit steps — is not a problem.
    public func verify() -> [CacheProblem] {
        var problems: [CacheProblem] = []
        var goodObjects: Set<String> = []
        for sha in objectNames() {
            let path = objectPath(sha)
            switch sha256(ofObject: sha) {
            case sha?:
                goodObjects.insert(sha)
            case let actual?:
                problems.append(problem(.objectCorrupt, path, "content hashes to \(actual)", [.object(sha), .tree(sha)]))
            case nil:
                problems.append(problem(.objectUnreadable, path, "cannot be read (or is not a regular file)", [.object(sha), .tree(sha)]))
            }
        }
        for sha in treeNames() where !goodObjects.contains(sha) && !problems.contains(where: { $0.entries.contains(.tree(sha)) }) {
            problems.append(problem(.treeWithoutObject, treePath(sha), "has no ZIP object beside it", [.tree(sha)]))
        }
        for sha in treeNames() {
            if let damage = checkTree(sha).problem { problems.append(damage) }
        }
        for name in refNames() {
            if let problem = checkRef(name, goodObjects: goodObjects) { problems.append(problem) }
        }
        for (shard, name) in leaseNames() {
            if let text = leaseFileProblem(name, in: shard) {
                problems.append(problem(.leaseInvalid, shard.path(of: name), text, [.lease(name)]))
            }
        }
        return problems
    }

    /// Removes what each problem names, links as themselves; the next run
    /// refetches those URLs. What a display app leases stays, with the refs
    /// that name it: the problems returned say which (``CacheProblem/leased``).
    @discardableResult
    public func repair(_ problems: [CacheProblem]) -> [CacheProblem] {
        removing(problems)
    }

    /// ``remove(_:)`` of what the problems name and of `more`: the problems,
    /// each marked ``CacheProblem/leased`` when something of it was kept.
    func removing(_ problems: [CacheProblem], and more: [CacheProblem.Entry] = []) -> [CacheProblem] {
        let kept = remove(problems.flatMap(\.entries) + more)
        return problems.map { problem in
            var problem = problem
            problem.leased = problem.entries.contains(where: kept.contains)
            return problem
        }
    }

    /// Removes the entries, but objects and trees a display app leases and the
    /// refs that name them (a ref gone would make the run fetch bytes it
    /// cannot store while the old ones stay): the entries kept. Each object or
    /// tree goes while its lease file is held exclusively, and the lease file
    /// last, once neither is left.
    @discardableResult
    func remove(_ entries: [CacheProblem.Entry]) -> Set<CacheProblem.Entry> {
        var locks: [String: LeaseRemovalLock] = [:]
        var leased: Set<String> = []
        for entry in entries {
            switch entry {
            case .object(let sha), .tree(let sha):
                guard locks[sha] == nil, !leased.contains(sha) else { continue }
                if let lock = lockForRemoval(sha) { locks[sha] = lock } else { leased.insert(sha) }
            case .ref, .lease: continue
            }
        }
        var kept: Set<CacheProblem.Entry> = []
        for entry in entries {
            switch entry {
            case .object(let sha) where leased.contains(sha), .tree(let sha) where leased.contains(sha):
                kept.insert(entry)
            case .object(let sha): shard(of: sha, in: objects)?.unlink(sha)
            case .tree(let sha): removeTree(sha)
            case .ref(let name):
                if let ref = readRef(named: name), leased.contains(ref.object) {
                    kept.insert(entry)
                } else {
                    refs.unlink(name)
                }
            case .lease(let sha):
                // As itself, never followed; a proper one is made in its place.
                try? leaseShard(of: sha)?.remove(sha)
                if hasObject(sha) || hasTree(sha) { createLease(sha) }
            }
        }
        for (sha, lock) in locks {
            let gone = shard(of: sha, in: objects)?.status(sha) == nil && shard(of: sha, in: trees)?.status(sha) == nil
            lock.end(removingLeaseFile: gone)
        }
        return kept
    }

    func problem(_ kind: CacheProblem.Kind, _ path: String, _ text: String, _ entries: [CacheProblem.Entry]) -> CacheProblem {
        let paths = entries.map { entry in
            switch entry {
            case .object(let sha): objectPath(sha)
            case .tree(let sha): treePath(sha)
            case .ref(let name): refs.path(of: name)
            case .lease(let sha): leasePath(sha)
            }
        }
        return CacheProblem(kind: kind, path: path, problem: text, remove: paths, entries: entries)
    }

    private func checkRef(_ name: String, goodObjects: Set<String>) -> CacheProblem? {
        let path = refs.path(of: name)
        guard let ref = readRef(named: name) else {
            return problem(.refUnreadable, path, "is not a readable ref", [.ref(name)])
        }
        guard let url = try? AssetURL(parsing: ref.url), refName(for: url) == name else {
            return problem(.refMisnamed, path, "does not match its URL '\(ref.url)'", [.ref(name)])
        }
        guard goodObjects.contains(ref.object) else {
            return problem(.refDangling, path, "names object \(ref.object), which is missing or damaged", [.ref(name)])
        }
        if ref.passedKinds.contains(.archive) && !hasTree(ref.object) {
            return problem(.refTreeMissing, path, "names a ZIP whose unpacked tree is missing", [.ref(name)])
        }
        if objectSize(ref.object) != ref.bytes {
            return problem(.refSizeMismatch, path, "says \(ref.bytes) bytes but its object differs", [.ref(name)])
        }
        return nil
    }

    /// The SHA-256 of an object's bytes, read without following a link.
    func sha256(ofObject sha: String) -> String? {
        guard let shard = shard(of: sha, in: objects) else { return nil }
        return Self.sha256(ofFile: sha, in: shard)?.sha256
    }

    /// The SHA-256 and size of a regular file, read without following a link;
    /// nil when it is anything else or cannot be read.
    static func sha256(ofFile name: String, in directory: Directory) -> (sha256: String, bytes: Int64)? {
        guard let fd = try? directory.openFile(name, O_RDONLY | O_NONBLOCK) else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        var hasher = SHA256()
        var bytes: Int64 = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { return nil }
            if n == 0 { break }
            buffer.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[..<n])) }
            bytes += Int64(n)
        }
        return (hex(hasher.finalize()), bytes)
    }

    /// Every file of a tree re-read and compared with its digest list
    /// (``TreeDigestList``): the first thing wrong, and the bytes read.
    func checkTree(_ sha: String) -> (problem: CacheProblem?, bytesRead: Int64) {
        let damaged = { (kind: CacheProblem.Kind, path: String, text: String) in
            self.problem(kind, path, text, [.tree(sha)])
        }
        guard let shard = shard(of: sha, in: trees) else { return (nil, 0) }
        let root = shard.path(of: sha)
        guard shard.isDirectory(sha), let tree = try? shard.openDirectory(sha) else {
            return (damaged(.treeUnsafeEntry, root, "is not a regular file or directory"), 0)
        }
        let listName = sha + TreeDigestList.suffix
        guard let list = shard.contents(of: listName, limit: TreeDigestList.maxSize).flatMap(TreeDigestList.decode) else {
            return (damaged(.treeUnlisted, root, "has no readable digest list (\(listName)) to check its files against"), 0)
        }
        var unseen = list
        var bytesRead: Int64 = 0
        var found: CacheProblem?
        do throws(FileSystem.Failure) {
            try tree.walk(entry: { directory, name, info throws(FileSystem.Failure) in
                let path = directory.path(of: name)
                let relative = String(path.dropFirst(root.count + 1))
                if info.st_mode & S_IFMT != S_IFREG {
                    found = damaged(.treeUnsafeEntry, path, "is not a regular file or directory")
                } else if let expected = unseen.removeValue(forKey: relative) {
                    let actual = Self.sha256(ofFile: name, in: directory)
                    bytesRead += actual?.bytes ?? 0
                    if actual?.sha256 != expected {
                        found = damaged(.treeFileCorrupt, path, actual.map { "content hashes to \($0.sha256), not \(expected) as unpacked" } ?? "cannot be read")
                    }
                } else {
                    found = damaged(.treeFileUnexpected, path, "is not a file of the unpacked ZIP")
                }
                if found != nil { throw FileSystem.Failure(operation: "stop", path: path, code: 0) }
            }, leave: { _, _, _ in })
        } catch {
            return (found ?? damaged(.treeUnsafeEntry, root, "cannot be read: \(error)"), bytesRead)
        }
        if let missing = unseen.keys.min() {
            return (damaged(.treeFileMissing, "\(root)/\(missing)", "is missing from the unpacked ZIP"), bytesRead)
        }
        return (nil, bytesRead)
    }
}
