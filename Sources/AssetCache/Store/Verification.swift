import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Glibc

/// One thing `verify` found wrong, and what `--repair` removes for it.
public struct CacheProblem: Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var problem: String
    /// Removed by a repair so that the next run fetches the asset again.
    public var remove: [String]

    public var description: String { "\(path): \(problem)" }
}

extension CacheStore {
    /// Re-hashes every object and checks every tree and ref (DESIGN §6). An object no
    /// ref names yet — left by a crash between commit steps — is not a problem.
    public func verify() -> [CacheProblem] {
        var problems: [CacheProblem] = []
        var goodObjects: Set<String> = []
        for sha in objectNames() {
            let path = objectPath(sha)
            switch Self.sha256(ofFileAt: path) {
            case sha?:
                goodObjects.insert(sha)
            case let actual?:
                problems.append(CacheProblem(path: path, problem: "content hashes to \(actual)", remove: [path, treePath(sha)]))
            case nil:
                problems.append(CacheProblem(path: path, problem: "cannot be read", remove: [path, treePath(sha)]))
            }
        }
        for sha in treeNames() where !goodObjects.contains(sha) && !problems.contains(where: { $0.remove.contains(treePath(sha)) }) {
            problems.append(CacheProblem(path: treePath(sha), problem: "has no ZIP object beside it", remove: [treePath(sha)]))
        }
        for sha in treeNames() {
            if let bad = Self.firstNonRegularEntry(treePath(sha)) {
                problems.append(CacheProblem(path: bad, problem: "is not a regular file or directory", remove: [treePath(sha)]))
            }
        }
        for name in refNames() {
            if let problem = checkRef(name, goodObjects: goodObjects) { problems.append(problem) }
        }
        return problems
    }

    /// Removes what each problem names; the next run refetches those URLs.
    public func repair(_ problems: [CacheProblem]) {
        for path in problems.flatMap(\.remove) {
            if path.hasPrefix(treesDirectory + "/") {
                removeTree(FileSystem.lastComponent(path))
            } else {
                FileSystem.remove(path)
            }
        }
    }

    private func checkRef(_ name: String, goodObjects: Set<String>) -> CacheProblem? {
        let path = "\(refsDirectory)/\(name)"
        guard let data = FileManager.default.contents(atPath: path),
              let ref = try? JSONDecoder().decode(AssetRef.self, from: data) else {
            return CacheProblem(path: path, problem: "is not a readable ref", remove: [path])
        }
        guard let url = try? AssetURL(parsing: ref.url), refPath(for: url) == path else {
            return CacheProblem(path: path, problem: "does not match its URL '\(ref.url)'", remove: [path])
        }
        guard goodObjects.contains(ref.object) else {
            return CacheProblem(path: path, problem: "names object \(ref.object), which is missing or damaged", remove: [path])
        }
        if ref.kind == .archive && !FileSystem.isDirectory(treePath(ref.object)) {
            return CacheProblem(path: path, problem: "names a ZIP whose unpacked tree is missing", remove: [path])
        }
        if FileSystem.size(objectPath(ref.object)) != ref.bytes {
            return CacheProblem(path: path, problem: "says \(ref.bytes) bytes but its object differs", remove: [path])
        }
        return nil
    }

    static func sha256(ofFileAt path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var hasher = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { return nil }
            if n == 0 { break }
            buffer.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[..<n])) }
        }
        return hex(hasher.finalize())
    }

    private static func firstNonRegularEntry(_ path: String) -> String? {
        for name in FileSystem.entries(path) {
            let child = "\(path)/\(name)"
            var info = stat()
            guard lstat(child, &info) == 0 else { return child }
            switch info.st_mode & S_IFMT {
            case S_IFDIR: if let bad = firstNonRegularEntry(child) { return bad }
            case S_IFREG: continue
            default: return child
            }
        }
        return nil
    }
}
