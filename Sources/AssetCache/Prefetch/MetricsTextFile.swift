/// The file `run --metrics-file` leaves for node_exporter's textfile collector,
/// which may read it at any moment: it is replaced whole, never rewritten in place.
public enum MetricsTextFile {
    /// Writes `text` to a temporary file beside `path` (a dot file that does not
    /// end in `.prom`, so the collector skips it), syncs it, and renames it over
    /// `path`: a reader sees the previous file or this one, never a part.
    public static func replace(_ path: String, with text: [UInt8]) throws(StoreError) {
        do {
            try FileSystem.writeAtomically(text, to: path, tempDirectory: FileSystem.parent(of: path))
        } catch {
            throw .io(error.description)
        }
    }
}
