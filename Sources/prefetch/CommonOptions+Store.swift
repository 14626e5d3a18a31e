import AssetCache
#if canImport(Glibc)
import Glibc
#endif

extension CommonOptions {
    /// Writers (run, gc, verify --repair) hold the cache's lock for their whole run.
    func openWriter(wait: Double = 0) throws(CommandFailure) -> CacheStore {
        do {
            return try CacheStore.openForWriting(at: cacheDirectory, wait: wait, logger: logger)
        } catch {
            throw CommandFailure(error)
        }
    }

    /// Readers take no lock and write nothing; nil when there is no cache yet.
    /// A `--cache-dir` that does not exist is a mistake to say, not an empty
    /// cache to report (a typo would otherwise read as "nothing cached"); the
    /// default location before the first run is just empty.
    func openReader() throws(CommandFailure) -> CacheStore? {
        if let cacheDir, access(cacheDirectory, F_OK) != 0 {
            throw CommandFailure(
                message: "no cache at '\(cacheDir)': the directory does not exist; check --cache-dir (a run creates it)",
                status: ExitStatus.usage)
        }
        do {
            return try CacheStore.openForReading(at: cacheDirectory, logger: logger)
        } catch {
            throw CommandFailure(error)
        }
    }

    /// A writer for commands that tend a cache (`gc`, `verify --repair`): they
    /// never make one where there is no directory. nil when there is none.
    func openExistingWriter(wait: Double = 0) throws(CommandFailure) -> CacheStore? {
        guard access(cacheDirectory, F_OK) == 0 else {
            guard let cacheDir else { return nil }
            throw CommandFailure(
                message: "no cache at '\(cacheDir)': the directory does not exist; check --cache-dir (a run creates it)",
                status: ExitStatus.usage)
        }
        return try openWriter(wait: wait)
    }

    static func exitStatus(for error: StoreError) -> Int32 {
        switch error {
        case .refused, .insecure: ExitStatus.usage
        case .locked: ExitStatus.locked
        case .io: ExitStatus.storage
        }
    }
}

extension CommandFailure {
    /// What failed, as the library says it, and what to do about it on the command line.
    init(_ error: StoreError) {
        let advice = switch error {
        case .refused: "; pass --cache-dir a new or empty directory, or one that prefetch made"
        case .locked, .insecure: ""  // the library's sentence already says what to do
        case .io: "; free some disk space or fix the directory's permissions, then run again"
        }
        self.init(message: error.description + advice, status: CommonOptions.exitStatus(for: error))
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
