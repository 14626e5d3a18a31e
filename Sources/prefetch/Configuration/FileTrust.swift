import AssetCache
#if canImport(Glibc)
import Glibc
#endif

/// Who may change the configuration and the trusted keys, checked as OpenSSH's
/// StrictModes and sudo check theirs (and the cache's ``DirectoryTrust``): its
/// owner must be the caller or root, and neither group nor others may write it.
/// Whoever could write there could name the manifest and the key that vouches for it.
enum FileTrust {
    /// nil when `info` (of the open file or directory at `path`) passes; else
    /// "'path' …" saying what is wrong and the fix.
    static func problem(path: String, info: stat) -> String? {
        let me = geteuid()
        if info.st_uid != me && info.st_uid != 0 {
            return "'\(path)': it belongs to uid \(info.st_uid), not to you (uid \(me)) or root; fix it with: chown root \(path)"
        }
        if info.st_mode & 0o022 != 0 {
            let mode = String(info.st_mode & 0o7777, radix: 8)
            let problem = "'\(path)': it is writable by \(info.st_mode & 0o002 != 0 ? "everyone" : "its group") (mode \(mode)); "
            // A shared directory (a keys.d of /tmp) is not the caller's to close.
            guard !DirectoryTrust.isShared(info) else {
                return problem + "it is shared or not yours to change: use a file or directory of your own that only you or root can write"
            }
            return problem + "fix it with: chmod go-w \(path)"
        }
        return nil
    }
}
