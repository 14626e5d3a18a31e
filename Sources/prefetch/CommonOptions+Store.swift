import AssetCache

extension CommonOptions {
    /// Writers (run, gc, verify --repair) hold the cache's lock for their whole run.
    func openWriter(wait: Double = 0) throws(CommandFailure) -> CacheStore {
        do {
            return try CacheStore.openForWriting(at: cacheDirectory, wait: wait)
        } catch {
            throw CommandFailure(message: error.description, status: Self.exitStatus(for: error))
        }
    }

    /// Readers take no lock and write nothing; nil when there is no cache yet.
    func openReader() throws(CommandFailure) -> CacheStore? {
        do {
            return try CacheStore.openForReading(at: cacheDirectory)
        } catch {
            throw CommandFailure(message: error.description, status: Self.exitStatus(for: error))
        }
    }

    static func exitStatus(for error: StoreError) -> Int32 {
        switch error {
        case .refused: ExitStatus.usage
        case .locked: ExitStatus.locked
        case .io: ExitStatus.storage
        }
    }
}
