import Synchronization

/// The run's side of `--min-free` (docs/limits.md#free-space): whether N more
/// bytes may be written to the cache's file system and still leave the floor
/// free. Each answer asks `fstatvfs(2)` of the cache directory once, and counts
/// what it granted and the writer has not written yet (``SpaceClaim``), so that
/// transfers side by side do not all pass on the same free space.
package final class FreeSpaceFloor: Sendable {
    /// Bytes left free.
    package let floor: Int64
    /// The file system's block: every file takes whole blocks.
    package let block: Int64
    /// The cache directory, held open: its descriptor is what is asked.
    private let directory: Directory
    private struct State {
        /// Bytes granted and not yet written.
        var outstanding: Int64 = 0
        /// The least free space a check saw, for the log.
        var lowestFree: Int64
    }

    private let state: Mutex<State>

    /// nil when the file system cannot say how much is free: the run goes on
    /// as before, and a full disk still defers rather than discards.
    /// `bookkeeping`: what the run writes besides its assets (the readiness
    /// index and its next copy, state.json), granted for the whole run.
    package init?(store: CacheStore, minimum: MinimumFree, bookkeeping: Int64 = 0) {
        guard let space = store.fileSystemSpace() else { return nil }
        floor = minimum.floor(onFileSystemOf: space.size)
        block = space.block
        directory = store.directory
        state = Mutex(State(outstanding: max(0, bookkeeping), lowestFree: space.free))
    }

    /// Free space above the floor that no grant has promised; negative when under it.
    package var room: Int64 {
        guard let free = FileSystemSpace.of(directory.descriptor)?.free else { return .max }
        return state.withLock { free - $0.outstanding - floor }
    }

    /// The least free space any check saw in the run.
    package var lowestFree: Int64 { state.withLock { $0.lowestFree } }

    /// The space `bytes` in `files` files take at most: each file's last block whole.
    package func onDisk(_ bytes: Int64, files: Int) -> Int64 {
        max(0, bytes) + Int64(max(0, files)) * block
    }

    /// Grants `bytes` when the file system keeps the floor free after them and
    /// after every grant not yet written: 0. Else how many bytes it lacks.
    package func grant(_ bytes: Int64) -> Int64 {
        guard bytes > 0 else { return 0 }
        // Asked under the lock: two grants never pass on the same free bytes.
        return state.withLock { state in
            guard let free = FileSystemSpace.of(directory.descriptor)?.free else { return 0 }
            state.lowestFree = min(state.lowestFree, free)
            let short = bytes - (free - state.outstanding - floor)
            guard short <= 0 else { return short }
            state.outstanding += bytes
            return 0
        }
    }

    /// Granted bytes that are on the disk now, or will never be: the file
    /// system's own count has them, or they are not coming.
    package func settle(_ bytes: Int64) {
        guard bytes > 0 else { return }
        state.withLock { $0.outstanding = max(0, $0.outstanding - bytes) }
    }
}
