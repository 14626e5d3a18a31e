@testable import AssetCache
import Foundation

/// The rules a power cut at any moment needs, checked against the durability
/// steps a run recorded (``PrefetchOptions/durabilityObserver``), in order:
///
/// - a file or tree is flushed before it is renamed out of `tmp/`;
/// - an object or tree named by a ref is renamed, and that name flushed (syncfs,
///   or an fsync of its shard, and of the shard's parent when the shard is new),
///   before the ref is published;
/// - a ref's bytes are flushed before it is published, and every published ref
///   is flushed (syncfs, or an fsync of `refs/`) before the run ends.
///
/// LazyFS passes renames straight through, so these rules are what shows a
/// missing directory fsync.
struct DurabilityOrder {
    let steps: [DurabilityStep]
    let root: String
    /// The object and tree paths the ref at a path names.
    let named: (String) -> [String]
    /// Files (relative paths) under a tree that was renamed to this path.
    let treeFiles: (String) -> [String]

    init(steps: [DurabilityStep], root: String,
         named: ((String) -> [String])? = nil, treeFiles: ((String) -> [String])? = nil) {
        self.steps = steps
        self.root = root
        self.named = named ?? { path in DurabilityOrder.pathsNamed(byRefAt: path, root: root) }
        self.treeFiles = treeFiles ?? DurabilityOrder.files(under:)
    }

    func violations() -> [String] {
        var found: [String] = []
        var lastRefPublished: Int?
        for (index, step) in steps.enumerated() {
            guard case .renamed(let from, let to) = step else { continue }
            let before = steps[..<index]
            if to.hasPrefix("\(root)/refs/") {
                lastRefPublished = index
                if !before.contains(where: { $0.coversData(of: from) }) {
                    found.append("ref \(to) published before its bytes were flushed")
                }
                for path in named(to) {
                    guard let renamed = before.lastIndex(where: { $0.destination == path }) else {
                        continue  // in the store before this run
                    }
                    let between = steps[(renamed + 1)..<index]
                    let shard = parent(path)
                    if !between.contains(where: { $0.coversName(in: shard) }) {
                        found.append("ref \(to) published before the name \(path) was flushed (no fsync of \(shard))")
                    }
                    // The shard may be older than this rename: its own name, anywhere before.
                    let shardParent = parent(shard)
                    if !before.contains(where: { $0.coversName(in: shardParent) }) {
                        found.append("ref \(to) published before the shard \(shard) was flushed in \(shardParent)")
                    }
                }
            } else if to.hasPrefix("\(root)/objects/") {
                if !before.contains(where: { $0.coversData(of: from) }) {
                    found.append("object \(to) renamed before its data was flushed")
                }
            } else if to.hasPrefix("\(root)/trees/") {
                for file in [""] + treeFiles(to) {
                    let path = file.isEmpty ? from : "\(from)/\(file)"
                    if !before.contains(where: { $0.coversData(of: path) }) {
                        found.append("tree \(to) renamed before \(path) was flushed")
                    }
                }
            }
        }
        if let lastRefPublished, !steps[(lastRefPublished + 1)...].contains(where: { $0.coversName(in: "\(root)/refs") }) {
            found.append("the run ended with published refs not flushed")
        }
        return found
    }

    private func parent(_ path: String) -> String {
        String(path[..<path.lastIndex(of: "/")!])
    }

    static func pathsNamed(byRefAt path: String, root: String) -> [String] {
        guard let data = FileManager.default.contents(atPath: path),
              let ref = try? JSONDecoder().decode(AssetRef.self, from: data) else { return [] }
        let shard = ref.object.prefix(2)
        let object = "\(root)/objects/\(shard)/\(ref.object)"
        return ref.passedKinds.contains(.archive) ? [object, "\(root)/trees/\(shard)/\(ref.object)"] : [object]
    }

    static func files(under tree: String) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: tree) else { return [] }
        return walker.compactMap { $0 as? String }
    }
}

extension DurabilityStep {
    var destination: String? {
        if case .renamed(_, let to) = self { return to }
        return nil
    }

    /// Makes the bytes of the file (or the entries of the directory) at `path` durable.
    func coversData(of path: String) -> Bool {
        switch self {
        case .syncedFilesystem: true
        case .syncedFile(let file): file == path
        case .syncedDirectory(let directory): directory == path
        case .renamed: false
        }
    }

    /// Makes the names in `directory` durable.
    func coversName(in directory: String) -> Bool {
        switch self {
        case .syncedFilesystem: true
        case .syncedDirectory(let synced): synced == directory
        case .syncedFile, .renamed: false
        }
    }
}
