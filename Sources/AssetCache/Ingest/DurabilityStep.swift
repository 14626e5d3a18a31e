/// One step the store takes to make a commit durable, as a test sees it: the
/// order of these steps is the durability argument, and a power-loss test on
/// LazyFS cannot check all of it (it passes renames straight through).
package enum DurabilityStep: Sendable, Equatable {
    /// syncfs(2): every file and directory entry of the cache's filesystem.
    case syncedFilesystem
    /// fsync(2) of one file's data.
    case syncedFile(String)
    /// fsync(2) of a directory: the names in it.
    case syncedDirectory(String)
    /// A file or tree moved from `tmp/` to its place, or a ref published.
    case renamed(from: String, to: String)
}

/// Receives every ``DurabilityStep`` of a run, in order, from the commit thread.
package typealias DurabilityObserver = @Sendable (DurabilityStep) -> Void
