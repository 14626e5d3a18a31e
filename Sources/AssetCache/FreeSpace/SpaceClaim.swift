import Synchronization

/// What one asset may write under the run's ``FreeSpaceFloor``: granted before
/// its body (the size a cached copy had), when its response head names a
/// Content-Length, as body bytes arrive past that (a MiB at a time), and before
/// a ZIP is unpacked (the entries' total from its central directory). Bytes
/// written stop counting against the floor's grants: the file system counts
/// them itself from then on.
package final class SpaceClaim: Sendable {
    /// What a body without a Content-Length asks for at a time past its grant:
    /// one `fstatvfs` per MiB instead of one per write.
    static let step: Int64 = 1 << 20

    package let floor: FreeSpaceFloor
    /// Called when the response head is known, and when the asset ends: under a
    /// floor that is near, the next non-urgent asset may then claim.
    let headKnown: (@Sendable () -> Void)?
    private struct State {
        var granted: Int64 = 0
        var written: Int64 = 0
        /// How many bytes the last refusal lacked: what a ``RoomMaker`` is asked to free.
        var refused: Int64 = 0
    }

    private let state = Mutex(State())

    init(floor: FreeSpaceFloor, headKnown: (@Sendable () -> Void)? = nil) {
        self.floor = floor
        self.headKnown = headKnown
    }

    /// Room for `bytes` more than what is written, asking the floor for what
    /// the grant lacks; false when the floor does not have it.
    package func ensure(_ bytes: Int64) -> Bool {
        state.withLock { state in
            let short = bytes - (state.granted - state.written)
            guard short > 0 else { return true }
            state.refused = floor.grant(short)
            guard state.refused == 0 else { return false }
            state.granted += short
            return true
        }
    }

    /// `bytes` are about to be written; false when they would cross the floor
    /// (they are then not written). The grant covers them, the file's last
    /// block and the ref.
    package func write(_ bytes: Int64) -> Bool {
        state.withLock { state in
            let short = floor.onDisk(state.written + bytes, files: 2) - state.granted
            if short > 0 {
                if floor.grant(max(short, Self.step)) == 0 {
                    state.granted += max(short, Self.step)
                } else {
                    state.refused = floor.grant(short)
                    guard state.refused == 0 else { return false }
                    state.granted += short
                }
            }
            state.written += bytes
            floor.settle(bytes)
            return true
        }
    }

    /// The body is on disk with `bytes`: what of its grant the transfer did not
    /// count as written (a delta's rebuild, written outside any transfer) is
    /// the file system's to count now, not the grant's to lend again.
    package func bodyLanded(_ bytes: Int64) {
        state.withLock { state in
            let landed = min(bytes, state.granted) - state.written
            guard landed > 0 else { return }
            floor.settle(landed)
            state.written += landed
        }
    }

    /// What the last refusal lacked; 0 when nothing was refused.
    package var refused: Int64 { state.withLock { $0.refused } }

    /// What was granted and not written goes back: a body ended, an unpack done.
    package func releaseUnwritten() {
        state.withLock { state in
            floor.settle(state.granted - state.written)
            state.granted = state.written
        }
    }
}
