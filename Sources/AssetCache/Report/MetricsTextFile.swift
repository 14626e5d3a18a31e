/// The file `run --metrics-file` leaves for node_exporter's textfile collector,
/// which may read it at any moment: it is replaced whole, never rewritten in place.
public enum MetricsTextFile {
    /// Writes `text` to a temporary file beside `path` (a dot file that does not
    /// end in `.prom`, so the collector skips it), syncs it, and renames it over
    /// `path`: a reader sees the previous file or this one, never a part.
    public static func replace(_ path: String, with text: [UInt8]) throws(StoreError) {
        let name = path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
        do throws(FileSystem.Failure) {
            let directory = try Directory.open(path: directory(of: path))
            try FileSystem.writeAtomically(text, to: directory, as: name, temporary: directory, mode: 0o644)
        } catch {
            throw .io(error.description)
        }
    }

    /// The directory `path` names its file in: "." for a bare name, "/" for one at the root.
    public static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
