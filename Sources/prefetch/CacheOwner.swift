#if canImport(Glibc)
import Glibc
#endif

/// Who owns a cache the caller may not use, for the hint of exit 77: running
/// as that user is the fix, not disk space and not a chmod.
enum CacheOwner {
    static func hint(for cache: String) -> String {
        // The cache itself, or when it cannot be examined (or is not made yet)
        // the nearest directory above it that can: that one keeps the caller out.
        var path = cache
        var info = stat()
        while stat(path, &info) != 0 {
            let parent = parentDirectory(of: path)
            guard parent != path else { return "run as the user who owns \(cache), or pass --cache-dir" }
            path = parent
        }
        let owner = userName(of: info.st_uid).map { "user '\($0)'" } ?? "uid \(info.st_uid)"
        let command = info.st_uid == 0 ? "sudo prefetch …" : "sudo -u \(userName(of: info.st_uid) ?? "#\(info.st_uid)") prefetch …"
        let what = path == cache ? "the cache \(cache)" : "\(path), which holds the cache \(cache),"
        return "\(what) belongs to \(owner); run as that user (\(command)) or pass --cache-dir"
    }

    /// The account's name from the password database (getpwuid_r), nil when it has none.
    static func userName(of uid: uid_t) -> String? {
        var entry = passwd()
        var found: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16 * 1024)
        return buffer.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress, getpwuid_r(uid, &entry, base, buffer.count, &found) == 0, found != nil,
                  let name = entry.pw_name else { return nil }
            return String(cString: name)
        }
    }

    /// "/a/b" → "/a", "/a" → "/", "b" → ".", "." → "." (where the walk stops).
    private static func parentDirectory(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.last == "/" { trimmed.removeLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }
}
