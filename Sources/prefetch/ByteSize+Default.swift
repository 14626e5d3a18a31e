import ArgumentParser

extension ByteSize {
    /// How `--help` shows a default: "50M", not "ByteSize(bytes: 52428800)".
    var defaultValueDescription: String {
        for (suffix, size) in [("G", Int64(1) << 30), ("M", Int64(1) << 20), ("K", Int64(1) << 10)]
        where bytes >= size && bytes % size == 0 {
            return "\(bytes / size)\(suffix)"
        }
        return "\(bytes)"
    }
}
