#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Logging

/// Opening a cache: the root made or found, refused unless it is a cache this
/// tool made that no one else can change, and its directories opened once.
extension CacheStore {
    /// Opens the cache for a writer: creates it if absent or empty, refuses a folder
    /// it did not make or that others could change, takes the writer lock and
    /// sweeps `tmp/`. With `wait`, a locked cache is retried until that many
    /// seconds have passed. `logger` hears of links removed from the cache.
    public static func openForWriting(
        at root: String, wait: Double = 0, logger: Logger = CacheStore.silentLogger
    ) throws(StoreError) -> CacheStore {
        guard let directory = try openRoot(root, creating: true) else { throw .io("cannot create \(root)") }
        // `lock` first: a second writer starting on the same new directory then sees
        // a folder holding `lock`, which it accepts, never a half-made foreign one.
        // A link there is refused rather than removed: another writer may be
        // about to lock whatever replaced it.
        let fd = try WriterLock.open(in: directory, root: root, logger: logger)
        try WriterLock.take(fd, in: directory, root: root, wait: wait, logger: logger)
        let store: CacheStore
        do throws(FileSystem.Failure) {
            func make(_ name: String, private: Bool = false) throws(FileSystem.Failure) -> Directory {
                try ensureDirectory(name, in: directory, private: `private`, logger: logger)
            }
            store = CacheStore(
                directory: directory, objects: try make("objects"), trees: try make("trees"),
                refs: try make("refs", private: true), tmp: try make("tmp", private: true), leases: try make("leases"),
                lockDescriptor: fd, logger: logger)
        } catch {
            close(fd)
            if error.code == EPERM, let reason = error.reason { throw .insecure(path: root, reason: reason) }
            throw StoreError(error, root: root)
        }
        // FORMAT last: a reader that finds it finds the directories too.
        if directory.status("FORMAT") == nil {
            do throws(FileSystem.Failure) {
                try FileSystem.writeAtomically(
                    Array("\(formatLine)\n".utf8), to: directory, as: "FORMAT", temporary: store.tmp, mode: 0o644)
            } catch {
                throw StoreError(error, root: root)
            }
        }
        try checkFormat(directory)
        store.sweepTemporaryFiles()
        return store
    }

    /// Opens the cache for a reader: no lock, no writes. nil when there is no cache yet.
    public static func openForReading(at root: String, logger: Logger = CacheStore.silentLogger) throws(StoreError) -> CacheStore? {
        guard let directory = try openRoot(root, creating: false), directory.status("FORMAT") != nil else { return nil }
        try checkFormat(directory)
        func open(_ name: String) throws(StoreError) -> Directory {
            let path = directory.path(of: name)
            let opened: Directory
            do throws(FileSystem.Failure) {
                opened = try directory.openDirectory(name)
            } catch where error.code == ELOOP || error.code == ENOTDIR {
                throw .insecure(path: root, reason: "\(path) is not a directory but a \(directory.kind(of: name)), "
                    + "which the cache never follows; a writer (prefetch gc) removes it")
            } catch where error.code == ENOENT {
                throw .refused(path: root, reason: "\(path) is missing; a writer (prefetch gc) makes it again")
            } catch {
                throw StoreError(error, root: root)
            }
            if let problem = DirectoryTrust.problem(with: opened, writer: false) { throw .insecure(path: root, reason: problem) }
            return opened
        }
        return CacheStore(
            directory: directory, objects: try open("objects"), trees: try open("trees"), refs: try open("refs"),
            tmp: try open("tmp"), leases: openLeases(directory), lockDescriptor: nil, logger: logger)
    }

    /// The root, made (with its missing parents) for a writer; nil for a reader
    /// when there is none. Refused when it is not a directory, when others could
    /// change it, or when it holds something else than a cache.
    private static func openRoot(_ root: String, creating: Bool) throws(StoreError) -> Directory? {
        var info = stat()
        if stat(root, &info) != 0 {
            // A parent closed to the caller hides the cache: that is no empty cache.
            let failure = FileSystem.Failure(operation: "stat", path: root, code: errno)
            guard creating else {
                if StoreError.isPermission(failure.code) { throw StoreError(failure, root: root) }
                return nil
            }
            do throws(FileSystem.Failure) {
                try FileSystem.makeDirectories(root)
            } catch {
                throw StoreError(error, root: root)
            }
        }
        let directory: Directory
        do throws(FileSystem.Failure) {
            directory = try Directory.open(path: root)
        } catch where error.code == ENOTDIR {
            throw .refused(path: root, reason: "it is not a directory")
        } catch {
            throw StoreError(error, root: root)
        }
        // Another user's cache is theirs to change: the fix is to run as them.
        if creating, let owner = directory.status()?.st_uid, DirectoryTrust.isForeign(owner) {
            throw .denied(path: root, reason: "it belongs to uid \(owner), not to you (uid \(geteuid())) or root, and a writer changes only a cache of its own")
        }
        if let problem = DirectoryTrust.problem(with: directory, writer: creating) { throw .insecure(path: root, reason: problem) }
        let names = directory.entries()
        if !names.isEmpty && !names.contains("FORMAT") && !names.contains("lock") {
            throw .refused(path: root, reason: "it is not empty and holds no FORMAT or lock file, so it is not a prefetch cache")
        }
        return directory
    }

    /// `leases/` for a reader: absent in a cache no writer of this release has
    /// opened (nothing is leased there), and ignored when it is not a directory
    /// or others could change it — a reader repairs nothing.
    private static func openLeases(_ directory: Directory) -> Directory? {
        guard let leases = try? directory.openDirectory("leases"),
              DirectoryTrust.problem(with: leases, writer: false) == nil else { return nil }
        return leases
    }

    private static func checkFormat(_ directory: Directory) throws(StoreError) {
        guard directory.status("FORMAT") != nil else { return }
        guard directory.isFile("FORMAT"), let bytes = directory.contents(of: "FORMAT", limit: 4096) else {
            throw .insecure(path: directory.path, reason: "\(directory.path(of: "FORMAT")) is not a regular file; the cache never follows a link")
        }
        let line = String(decoding: bytes, as: UTF8.self).trimmed()
        guard line == formatLine else {
            throw .refused(path: directory.path, reason: "its FORMAT says '\(line)', this tool reads '\(formatLine)'")
        }
    }
}
