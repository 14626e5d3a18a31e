import AssetCache
#if canImport(Glibc)
import Glibc
#endif

/// How every subcommand opens the cache, so that a mistake reads the same in
/// each: a missing `--cache-dir` is exit 2 naming it, a permission problem
/// exit 77 naming the cache's owner, a full or failing disk exit 74.
extension CommonOptions {
    /// Writers (run, gc, verify --repair) hold the cache's lock for their whole run.
    func openWriter(wait: Double = 0) throws(CommandFailure) -> CacheStore {
        do {
            return try CacheStore.openForWriting(at: cacheDirectory, wait: wait, logger: logger)
        } catch {
            throw CommandFailure(error)
        }
    }

    /// Every read-only command (plan, status, verify, simulate, and any that
    /// only reads, such as ready or ls) opens the cache here: no lock, no
    /// writes, nothing created. nil when there is no cache yet.
    /// A `--cache-dir` that does not exist is a mistake to say, not an empty
    /// cache to report (a typo would otherwise read as "nothing cached"); the
    /// default location before the first run is just empty.
    func openReader() throws(CommandFailure) -> CacheStore? {
        try refuseMissingCacheDir()
        do {
            return try CacheStore.openForReading(at: cacheDirectory, logger: logger)
        } catch {
            throw CommandFailure(error)
        }
    }

    /// A writer for commands that tend a cache (`gc`, `verify --repair`): they
    /// never make one where there is no directory. nil when there is none.
    func openExistingWriter(wait: Double = 0) throws(CommandFailure) -> CacheStore? {
        try refuseMissingCacheDir()
        guard !isMissing(cacheDirectory) else { return nil }
        return try openWriter(wait: wait)
    }

    /// Exit 2 when `--cache-dir` names nothing. A path that cannot be examined
    /// (a parent closed to the caller) is not "missing": opening it says who owns it.
    private func refuseMissingCacheDir() throws(CommandFailure) {
        guard let cacheDir, isMissing(cacheDirectory) else { return }
        throw CommandFailure(
            message: "no cache at '\(cacheDir)': the directory does not exist; check --cache-dir (a run creates it)",
            status: ExitStatus.usage)
    }

    private func isMissing(_ path: String) -> Bool {
        access(path, F_OK) != 0 && (errno == ENOENT || errno == ENOTDIR)
    }
}

extension CommandFailure {
    /// What failed, as the library says it, and what to do about it on the command line.
    init(_ error: StoreError) {
        switch error {
        case .refused:
            self.init(message: error.description + "; pass --cache-dir a new or empty directory, or one that prefetch made", status: ExitStatus.of(error))
        case .locked, .insecure:  // the library's sentence already says what to do
            self.init(message: error.description, status: ExitStatus.of(error))
        case .denied(let path, _):
            self.init(message: error.description, status: ExitStatus.of(error), hint: CacheOwner.hint(for: path))
        case .io, .noSpace:
            self.init(message: error.description + "; free some disk space or check the disk, then run again", status: ExitStatus.of(error))
        }
    }
}

extension CommonOptions {
    /// The cache's readiness index, for `ready` and `ls`; nil before the first
    /// run. One that cannot be read is exit 2, with what is wrong with it.
    func readIndex(from store: CacheStore?, only: Set<String>? = nil, triggers: Bool = true) throws(CommandFailure) -> ReadinessIndex? {
        do {
            return try store?.readReadinessIndex(only: only, triggers: triggers)
        } catch {
            throw CommandFailure(
                message: "the readiness index \(cacheDirectory)/\(ReadinessIndex.fileName) cannot be read: \(error); the next run replaces it",
                status: ExitStatus.usage)
        }
    }
}
