import AssetCache

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
    func openReader() throws(CommandFailure) -> CacheStore? {
        do {
            return try CacheStore.openForReading(at: cacheDirectory, logger: logger)
        } catch {
            throw CommandFailure(error)
        }
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
