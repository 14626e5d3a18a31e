#if canImport(Glibc)
import Glibc
#endif

/// Display leases (docs/cache-format.md#leases): `leases/ab/<sha256>` is an
/// empty file, mode 0444, one per object (and so per tree: they share the
/// name). A display app that shows an object or tree holds a shared `flock(2)`
/// on an open descriptor of its lease file, which it needs only read access to
/// take; the kernel drops it when the app closes the file, exits or crashes, so
/// no lease outlives its app. A writer removes an object or tree only while it
/// holds that file's exclusive lock (``LeaseRemovalLock``), and unlinks the lease
/// file last: an app that takes its lease afterwards finds the files gone and
/// asks the index again.
extension CacheStore {
    /// Lease files are read by display apps running as other users, and never written.
    static let leaseFileMode: mode_t = 0o444

    /// Where the lease file of `sha256` is (or would be), for messages and for the index.
    package func leasePath(_ sha256: String) -> String {
        "\(leases?.path ?? directory.path(of: "leases"))/\(sha256.prefix(2))/\(sha256)"
    }

    /// Whether a display app holds a lease on the object (or tree) `sha256`
    /// right now. Asked by trying the lease file's exclusive lock without
    /// waiting; a lock taken is let go at once (an app taking its lease in that
    /// instant waits that long). A lease file that is missing, a link (never
    /// followed) or not a regular file holds no lease.
    public func isLeased(sha256: String) -> Bool {
        guard let shard = leaseShard(of: sha256), let fd = Self.openLeaseFile(sha256, in: shard) else { return false }
        defer { close(fd) }
        return !Self.lockExclusively(fd)
    }

    /// What became of taking a lease.
    package enum Taking: Equatable, Sendable {
        /// The lease is held on this descriptor (close-on-exec); closing it ends the lease.
        case held(Int32)
        /// The object or tree is gone, or its lease file is.
        case gone
        /// Another process held the lease file exclusively for the whole wait.
        /// A writer does so only while it removes the asset; a longer hold is
        /// a reader's that took `LOCK_EX`, which the kernel lets any reader take.
        case heldExclusively
    }

    /// A lease taken as a display app takes it (`prefetch lease`): the lease
    /// file opened read-only, never through a link, and locked shared — which
    /// waits out a writer removing the object, for at most `wait` seconds —
    /// then the object or tree checked to be still there and the file still
    /// linked.
    package func takeLease(sha256: String, wait: Double) -> Taking {
        guard let shard = leaseShard(of: sha256), let fd = Self.openLeaseFile(sha256, in: shard) else { return .gone }
        let outcome = BoundedLock.lock(fd, LOCK_SH, within: wait) {
            logger.info("\(leasePath(sha256)) is held exclusively by another process; waiting for it (at most --wait seconds in all)")
        }
        switch outcome {
        case .locked: break
        case .timedOut:
            close(fd)
            return .heldExclusively
        case .failed:
            close(fd)
            return .gone
        }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_nlink > 0, hasObject(sha256) || hasTree(sha256) else {
            close(fd)
            return .gone
        }
        return .held(fd)
    }

    /// The writer's exclusive lock on `sha256`'s lease file, taken without
    /// waiting, for removing the object or tree; nil while a display app
    /// leases it. Only a writer holding the cache's lock may call this.
    func lockForRemoval(_ sha256: String) -> LeaseRemovalLock? {
        lockForRemoval(sha256, in: leaseShard(of: sha256))
    }

    /// The same for the entry `name` of a lease shard. No shard means no lease
    /// file: nothing can be leased there, and only a writer, which this is,
    /// makes one.
    private func lockForRemoval(_ name: String, in shard: Directory?) -> LeaseRemovalLock? {
        guard let shard else { return LeaseRemovalLock(shard: nil, name: name, descriptor: -1, logger: logger) }
        guard let fd = Self.openLeaseFile(name, in: shard) else {
            // A regular file that cannot be opened may be leased: it is kept.
            // Anything else there (a link, a FIFO) holds no lease.
            if shard.isFile(name) { return nil }
            return LeaseRemovalLock(shard: shard, name: name, descriptor: -1, logger: logger)
        }
        guard Self.lockExclusively(fd) else {
            close(fd)
            return nil
        }
        return LeaseRemovalLock(shard: shard, name: name, descriptor: fd, logger: logger)
    }

    /// Makes the lease file of an object about to be committed (or of one a
    /// cache from an older release holds without one). Not flushed: one lost
    /// to a power cut is made again by the next run's ``reconcileLeaseFiles()``. A
    /// failure only means no app can lease it yet: said, never fatal.
    func createLease(_ sha256: String) {
        guard let leases else { return }
        do throws(FileSystem.Failure) {
            let shard = try makeShard(of: sha256, in: leases)
            close(try shard.createFile(sha256, mode: Self.leaseFileMode))
        } catch where error.code == EEXIST {
            // Made by an earlier commit of the same bytes, or a link verify reports.
        } catch {
            logger.warning("could not create the lease file \(leasePath(sha256)): \(error); display apps cannot lease it until the next run makes it")
        }
    }

    /// Makes `leases/` match what is stored: every object and tree gets the
    /// lease file it lacks (a cache from an older release gains them here, and
    /// one lost to a power cut is made again), and a lease file whose object
    /// and tree are both gone is removed unless an app still holds it. Only a
    /// writer holding the cache's lock may call this, with no commit under way.
    package func reconcileLeaseFiles() {
        guard let leases else { return }
        var stored: [String: Set<String>] = [:]
        for sha in objectNames() + treeNames() { stored[String(sha.prefix(2)), default: []].insert(sha) }
        let shards = Set(stored.keys).union(leases.entries().filter { $0.utf8.count == 2 })
        for prefix in shards.sorted() {
            let shard = shard(of: prefix, in: leases)
            let present = Set(shard?.entries() ?? [])
            let wanted = stored[prefix] ?? []
            for sha in wanted.subtracting(present).sorted() { createLease(sha) }
            for orphan in present.subtracting(wanted).sorted() {
                lockForRemoval(orphan, in: shard)?.end(removingLeaseFile: true)
            }
        }
    }

    /// Whether the lease file of `sha256` is an empty regular file, as a
    /// writer makes it; the kind of entry it is otherwise, for `verify`.
    func leaseFileProblem(_ name: String, in shard: Directory) -> String? {
        guard let info = shard.status(name) else { return nil }
        guard info.st_mode & S_IFMT == S_IFREG else {
            return "is a \(shard.kind(of: name)), not an empty regular file; it was not followed, and holds no lease"
        }
        return info.st_size == 0 ? nil : "is not empty (\(info.st_size) bytes); a lease file holds nothing"
    }

    func leaseShard(of sha256: String) -> Directory? {
        leases.flatMap { shard(of: sha256, in: $0) }
    }

    /// The entries under `leases/ab/` whose names begin with `ab`, by shard
    /// (other names are orphans, which ``reconcileLeaseFiles()`` sweeps).
    func leaseNames() -> [(shard: Directory, name: String)] {
        guard let leases else { return [] }
        return leases.entries().filter { $0.utf8.count == 2 }.sorted().flatMap { prefix in
            shard(of: prefix, in: leases).map { shard in
                shard.entries().filter { $0.hasPrefix(prefix) }.sorted().map { (shard, $0) }
            } ?? []
        }
    }

    /// A lease file opened read-only, as an app opens it: never through a link,
    /// never blocking on a FIFO planted there; nil for anything but a regular file.
    private static func openLeaseFile(_ name: String, in shard: Directory) -> Int32? {
        guard let fd = try? shard.openFile(name, O_RDONLY | O_NONBLOCK) else { return nil }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            return nil
        }
        return fd
    }

    /// `flock(LOCK_EX | LOCK_NB)`: false when someone holds the file (a lease),
    /// or the lock cannot be had (then it counts as held: keeping is the safe side).
    private static func lockExclusively(_ fd: Int32) -> Bool {
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            if errno != EINTR { return false }
        }
        return true
    }
}
