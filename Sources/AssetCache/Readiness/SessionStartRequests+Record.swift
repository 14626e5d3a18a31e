#if canImport(Glibc)
import Glibc
#endif

/// Recording a request (a display app, as a member of the directory's group)
/// and taking them (prefetch.service, before each run). Every step names an
/// entry relative to the directory's descriptor, never through a link.
extension SessionStartRequests {
    package enum Recorded: Sendable {
        case recorded
        /// `request` was there already: the run it asks for is still to come.
        case alreadyPending
    }

    /// What a run took: the requests, and what it could not remove afterwards
    /// (hidden by then, so no longer a request; a message for each).
    package struct Taken: Sendable {
        package var requests: Int
        package var leftovers: [String]
    }

    /// Why a request could not be recorded or taken, in the words of the error.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package enum Kind: Sendable {
            /// Missing, not a directory, a link, or writable by everyone: nothing was written.
            case refused
            /// EACCES or EPERM: the caller is not one who may write there.
            case denied
            /// The file system said no (read-only, full, I/O).
            case storage
        }

        package var kind: Kind
        package var description: String
    }

    /// Creates `request` in `dir` (`O_EXCL`: never through a link, never
    /// truncating anything), empty: prefetch trusts nothing but its existence.
    package static func record(in dir: String) throws(Failure) -> Recorded {
        let doing = "record a session start in \(dir)"
        guard let directory = try openChecked(dir, doing: doing) else {
            throw Failure(kind: .refused, description: "no request directory \(dir): make it as the package's tmpfiles.d does "
                + "(systemd-tmpfiles --create prefetch.conf), or name another with --request-dir")
        }
        let fd = openat(directory.descriptor, requestName, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o640)
        guard fd >= 0 else {
            let code = errno
            if code == EEXIST { return .alreadyPending }
            throw failure(FileSystem.Failure(operation: "create", path: directory.path(of: requestName), code: code), doing: doing)
        }
        close(fd)
        return .recorded
    }

    /// Takes every request in `dir`: each is renamed to a hidden name first
    /// (which needs only the directory's write permission, so even an entry a
    /// group member made unremovable stops counting, and the path unit cannot
    /// loop on it), then every hidden or backup entry is removed as far as it
    /// can be. A request created after the names were read keeps its name and
    /// starts the next run. nil when there is no `dir`: nothing to take.
    package static func take(in dir: String) throws(Failure) -> Taken? {
        let doing = "take the session-start requests in \(dir)"
        guard let directory = try openChecked(dir, doing: doing) else { return nil }
        var requests = 0
        for name in directory.entries() where isRequest(name) {
            if try hide(name, in: directory, doing: doing) { requests += 1 }
        }
        var leftovers: [String] = []
        for name in directory.entries() where !isRequest(name) {
            do {
                try directory.remove(name)
            } catch {
                leftovers.append(error.description)
            }
        }
        return Taken(requests: requests, leftovers: leftovers)
    }

    /// `dir` opened without following a link, or nil when it does not exist;
    /// refused when it is not a directory or everyone may write to it (anyone
    /// could then plant or remove requests).
    private static func openChecked(_ dir: String, doing: String) throws(Failure) -> Directory? {
        let directory: Directory
        do {
            directory = try Directory.workingDirectory.openDirectory(dir)
        } catch {
            switch error.code {
            case ENOENT: return nil
            // O_DIRECTORY | O_NOFOLLOW says ENOTDIR of a link to a directory too.
            case ENOTDIR, ELOOP:
                let isLink = Directory.workingDirectory.kind(of: dir) == "symbolic link"
                throw Failure(kind: .refused, description: "refusing request directory \(dir): " + (isLink
                    ? "it is a symbolic link; name the directory itself (prefetch follows no link there)"
                    : "it is not a directory"))
            default: throw failure(error, doing: doing)
            }
        }
        guard let info = directory.status() else {
            throw failure(FileSystem.Failure(operation: "stat", path: dir, code: errno), doing: doing)
        }
        if info.st_mode & 0o002 != 0 {
            let fix = DirectoryTrust.isShared(info)
                ? "it is shared, not a request directory's own: use one of its own, as the package's \(SessionStartRequests.defaultDirectory)"
                : "fix it with: chmod o-w \(dir)"
            throw Failure(kind: .refused, description: "refusing request directory \(dir): it is writable by everyone "
                + "(mode \(String(info.st_mode & 0o7777, radix: 8))), who could plant or remove requests; \(fix)")
        }
        return directory
    }

    /// Renames `name` to a new dot name; false when it is gone already.
    private static func hide(_ name: String, in directory: Directory, doing: String) throws(Failure) -> Bool {
        for _ in 0..<8 {
            let hidden = ".taken-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
            if renameat(directory.descriptor, name, directory.descriptor, hidden) == 0 { return true }
            let code = errno
            switch code {
            case ENOENT: return false
            // A group member made an entry of that name: another name.
            case EEXIST, ENOTEMPTY, EISDIR, ENOTDIR: continue
            default:
                throw failure(FileSystem.Failure(operation: "rename", path: directory.path(of: name), code: code), doing: doing)
            }
        }
        throw Failure(kind: .storage, description: "cannot \(doing): no free hidden name to rename \(directory.path(of: name)) to")
    }

    private static func failure(_ error: FileSystem.Failure, doing: String) -> Failure {
        if StoreError.isPermission(error.code) {
            return Failure(kind: .denied, description: "no permission to \(doing): \(error.description)")
        }
        return Failure(kind: .storage, description: "cannot \(doing): \(error.description)")
    }
}
