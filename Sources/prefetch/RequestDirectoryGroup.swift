import AssetCache
#if canImport(Glibc)
import Glibc
#endif

/// The group that may write session-start requests, for the hint of exit 77:
/// joining it is the fix (a display app's unit gains it with
/// `SupplementaryGroups=`), not running as root.
enum RequestDirectoryGroup {
    static func hint(for dir: String) -> String {
        var info = stat()
        guard lstat(dir, &info) == 0 else { return "run as a member of the group that may write to \(dir)" }
        let group = groupName(of: info.st_gid) ?? "\(info.st_gid)"
        guard isMember(of: info.st_gid) else {
            let user = CacheOwner.userName(of: geteuid()) ?? "\(geteuid())"
            return "join the group '\(group)', which may write to \(dir): SupplementaryGroups=\(group) in the app's unit, "
                + "or usermod -aG \(group) \(user) and log in again"
        }
        let problem = "you are in the group '\(group)' of \(dir), but it may not write there (mode "
            + "\(String(info.st_mode & 0o7777, radix: 8)))"
        // Only the package's directory, or one of the caller's, is safe to chmod.
        guard dir == SessionStartRequests.defaultDirectory || !DirectoryTrust.isShared(info) else {
            return problem + "; it is not a request directory's own: pass the one the service watches (--request-dir)"
        }
        return problem + "; the package makes it 2770: chmod 2770 \(dir)"
    }

    /// The group's name from the group database (getgrgid_r), nil when it has none.
    static func groupName(of gid: gid_t) -> String? {
        var entry = group()
        var found: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 16 * 1024)
        return buffer.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress, getgrgid_r(gid, &entry, base, buffer.count, &found) == 0, found != nil,
                  let name = entry.gr_name else { return nil }
            return String(cString: name)
        }
    }

    /// Whether the process has `gid` as its group or a supplementary one.
    private static func isMember(of gid: gid_t) -> Bool {
        if getegid() == gid { return true }
        let count = getgroups(0, nil)
        guard count > 0 else { return false }
        var groups = [gid_t](repeating: 0, count: Int(count))
        let filled = getgroups(count, &groups)
        return filled > 0 && groups.prefix(Int(filled)).contains(gid)
    }
}
