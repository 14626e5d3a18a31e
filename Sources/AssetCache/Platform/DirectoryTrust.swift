#if canImport(Glibc)
import Glibc
#endif

/// Who may change a cache directory, checked the way OpenSSH's StrictModes and
/// sudo check theirs, on the open descriptor (so the directory checked is the one
/// used). Anyone who can write into a directory of the cache can plant links
/// and files in it; the store follows no link, but a planted object or ref would
/// still be shown as the asset.
package enum DirectoryTrust {
    /// Asked once: checks run on every shard a run opens.
    private static let caller = geteuid()

    /// Writers (which create, remove and change modes) need the directory to be
    /// owned by the caller or root; readers write nothing and may read a cache
    /// another user keeps for them. Neither accepts one that group or others can
    /// write. nil when `directory` passes; else what is wrong and the fix.
    static func problem(with directory: Directory, writer: Bool) -> String? {
        guard let info = directory.status() else {
            return "\(directory.path) cannot be examined: \(String(cString: strerror(errno)))"
        }
        let me = caller
        if writer && isForeign(info.st_uid) {
            return "\(directory.path) belongs to uid \(info.st_uid), not to you (uid \(me)) or root, and its owner could "
                + "plant links or files in it; fix it with: chown \(me) \(directory.path), or use a directory of your own"
        }
        if info.st_mode & 0o022 != 0 {
            let mode = String(info.st_mode & 0o7777, radix: 8)
            let problem = "\(directory.path) is writable by \(info.st_mode & 0o002 != 0 ? "everyone" : "its group") (mode \(mode)), "
                + "who could plant links or files in it; "
            guard !isShared(info) else {
                return problem + "it is shared, not a cache's own: use a directory of your own instead, "
                    + "a new one that prefetch run makes, e.g. --cache-dir ~/.cache/prefetch"
            }
            return problem + "fix it with: chmod go-w \(directory.path)"
        }
        return nil
    }

    /// A directory others use too: sticky (as /tmp), or not the caller's. Its
    /// modes are not the caller's to change, so no hint may say to: a `chmod`
    /// of /tmp would break every other user of it.
    package static func isShared(_ info: stat) -> Bool {
        info.st_mode & S_ISVTX != 0 || info.st_uid != caller
    }

    /// Neither the caller's nor root's: a writer must not work in it.
    static func isForeign(_ owner: uid_t) -> Bool { owner != caller && owner != 0 }
}
