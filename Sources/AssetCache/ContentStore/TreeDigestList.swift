/// `trees/ab/<sha256>.sha256sums`: the SHA-256 of every file of one unpacked tree,
/// written when the ZIP is unpacked, so that the scrub and `verify` can tell a
/// file that rotted or was edited at rest (the tree's own name is the ZIP's hash,
/// which says nothing of the files). It is in `sha256sum`'s format — one
/// `<hex>  <path>` line per file, sorted by path — so an operator can check a
/// tree by hand: `cd trees/ab/<sha256> && sha256sum -c ../<sha256>.sha256sums`.
/// ZIP entry names with a control character or a backslash are refused at
/// unpacking, so a path needs no escaping.
package enum TreeDigestList {
    package struct File: Sendable, Equatable {
        package var path: String
        package var sha256: String

        package init(path: String, sha256: String) {
            self.path = path
            self.sha256 = sha256
        }
    }

    package static let suffix = ".sha256sums"
    /// A list read from the cache is hostile: it is read no further than this.
    static let maxSize = 16 << 20

    package static func encode(_ files: [File]) -> [UInt8] {
        var text: [UInt8] = []
        for file in files.sorted(by: { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }) {
            text += Array(file.sha256.utf8) + Array("  ".utf8) + Array(file.path.utf8) + [0x0A]
        }
        return text
    }

    /// Path to digest; nil when the text is not a list this tool writes (a bad
    /// digest, a path that leaves the tree, a path twice): such a tree cannot be
    /// checked, and is treated as damaged.
    package static func decode(_ bytes: [UInt8]) -> [String: String]? {
        var files: [String: String] = [:]
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast() {
            guard line.count > 66, line[line.startIndex + 64] == 0x20, line[line.startIndex + 65] == 0x20 else { return nil }
            let digest = line.prefix(64)
            guard digest.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else { return nil }
            let path = line.dropFirst(66)
            guard isTreePath(path), let name = String(validating: path, as: UTF8.self) else { return nil }
            guard files.updateValue(String(decoding: digest, as: UTF8.self), forKey: name) == nil else { return nil }
        }
        guard bytes.isEmpty || bytes.last == 0x0A else { return nil }
        return files
    }

    /// Relative, below the tree: no empty, `.` or `..` component, no control character.
    private static func isTreePath(_ path: ArraySlice<UInt8>) -> Bool {
        guard !path.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == 0x5C }) else { return false }
        return path.split(separator: 0x2F, omittingEmptySubsequences: false).allSatisfy { component in
            !component.isEmpty && !component.elementsEqual([0x2E]) && !component.elementsEqual([0x2E, 0x2E])
        }
    }
}
