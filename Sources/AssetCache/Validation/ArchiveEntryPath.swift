/// The path rules of docs/limits.md for one entry name: relative, no `..`, `.` or empty
/// components, no backslash, NUL or control characters, no drive letter. A single
/// trailing `/` marks a directory and is allowed.
enum ArchiveEntryPath {
    /// Longest single component most Linux filesystems accept.
    static let maxComponentBytes = 255

    /// The components to create, or the reason the name is unsafe.
    static func components(of entry: ArchiveEntry) throws(AssetFailure) -> [String] {
        let name = entry.quotedName
        guard !entry.name.isEmpty, !entry.rawName.isEmpty else {
            throw AssetFailure(.unsafeArchive, "entry #\(entry.index) has an empty name")
        }
        let hasControl = { (value: UInt32) in value < 0x20 || value == 0x7F }
        if entry.rawName.contains(where: { hasControl(UInt32($0)) })
            || entry.name.unicodeScalars.contains(where: { hasControl($0.value) }) {
            throw AssetFailure(.unsafeArchive, "entry \(name) has a control character in its name")
        }
        if entry.rawName.contains(UInt8(ascii: "\\")) || entry.name.contains("\\") {
            throw AssetFailure(.unsafeArchive, "entry \(name) has a backslash in its name")
        }
        if entry.name.hasPrefix("/") {
            throw AssetFailure(.unsafeArchive, "entry \(name) is an absolute path")
        }
        let scalars = Array(entry.name.unicodeScalars.prefix(2))
        if scalars.count == 2, scalars[1] == ":", scalars[0].isASCII, scalars[0].properties.isAlphabetic {
            throw AssetFailure(.unsafeArchive, "entry \(name) starts with a drive letter")
        }

        var path = Substring(entry.name)
        if path.hasSuffix("/") { path = path.dropLast() }
        let components = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        var depth = 0
        for component in components {
            switch component {
            case "":
                throw AssetFailure(.unsafeArchive, "entry \(name) has an empty path component")
            case ".":
                throw AssetFailure(.unsafeArchive, "entry \(name) has a '.' path component")
            case "..":
                depth -= 1
                throw AssetFailure(
                    .unsafeArchive,
                    depth < 0 ? "entry \(name) escapes the archive root" : "entry \(name) has a '..' path component"
                )
            default:
                guard component.utf8.count <= maxComponentBytes else {
                    throw AssetFailure(.unsafeArchive, "entry \(name) has a path component over \(maxComponentBytes) bytes")
                }
                depth += 1
            }
        }
        return components
    }
}
