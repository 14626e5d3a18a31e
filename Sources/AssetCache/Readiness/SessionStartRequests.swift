#if canImport(Glibc)
import Glibc
#endif

/// Requests for a run now, as a session starts, from display apps that may not
/// run one themselves (they are not the cache's owner): an entry in a directory
/// the cache's group may write, `/run/prefetch/session-start` as the Debian
/// package makes it. systemd's `prefetch-session.path` watches that directory
/// with `DirectoryNotEmpty=` and starts `prefetch.service`, whose run takes the
/// requests present when it starts (`prefetch session-start --consume`); a
/// request made during a run stays and starts one more run after it.
///
/// Whoever is in the group writes there, so only an entry's existence means
/// anything: nothing is read from one and no link there is followed. A name
/// counts as a request exactly when systemd counts it (``isRequest(_:)``).
public enum SessionStartRequests {
    /// Where `prefetch session-start` records a request, and where the packaged
    /// `prefetch-session.path` looks, unless told otherwise.
    public static let defaultDirectory = "/run/prefetch/session-start"

    /// The environment variable that names another request directory (tests, a
    /// path unit of one's own).
    public static let environmentVariable = "PREFETCH_REQUEST_DIR"

    /// The one name `prefetch session-start` creates: a request made while one
    /// is pending finds it there and adds nothing, so any number of them make
    /// one run.
    public static let requestName = "request"

    /// `$PREFETCH_REQUEST_DIR` when it is set and not empty, else ``defaultDirectory``.
    public static func directory(environment: [String: String]) -> String {
        if let dir = environment[environmentVariable], !dir.isEmpty { return dir }
        return defaultDirectory
    }

    /// Whether a request is pending in `dir`: a run has been asked for and no
    /// run has taken the request yet, so one is about to start (or to follow
    /// the one going on). A request is pending from the moment it is recorded
    /// until the run it starts takes it, first thing (`ExecStartPre=`, before
    /// that run takes the cache's lock): from then on that run is the one
    /// going on. True when `dir` is a directory, not a link to one, holding an
    /// entry that ``isRequest(_:)``; false when it does not, does not exist or
    /// cannot be read. Reads names only, never an entry.
    public static func pending(in dir: String) -> Bool {
        guard let directory = try? Directory.workingDirectory.openDirectory(dir) else { return false }
        return directory.entries().contains(where: isRequest)
    }

    /// Whether systemd's `DirectoryNotEmpty=` counts an entry of this name: it
    /// skips hidden and backup files (systemd.path(5): "files whose name starts
    /// with a dot … are generally ignored"; src/basic/path-util.c,
    /// `hidden_or_backup_file()`, which this follows). A run hides what it
    /// takes by renaming it to a dot name, so that it stops counting at once.
    public static func isRequest(_ name: String) -> Bool {
        if name.isEmpty || name.hasPrefix(".") || name.hasSuffix("~") { return false }
        if ["lost+found", "aquota.user", "aquota.group"].contains(name) { return false }
        guard let dot = name.lastIndex(of: ".") else { return true }
        return !ignoredSuffixes.contains(String(name[name.index(after: dot)...]))
    }

    /// The suffixes after the last dot that systemd takes for backups.
    private static let ignoredSuffixes: Set<String> = [
        "ignore", "rpmnew", "rpmsave", "rpmorig", "dpkg-old", "dpkg-new", "dpkg-tmp", "dpkg-dist", "dpkg-bak",
        "dpkg-backup", "dpkg-remove", "ucf-new", "ucf-old", "ucf-dist", "swp", "bak", "old", "new",
    ]
}
