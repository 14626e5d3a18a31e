import Synchronization

/// Turns a run's events into ``PrefetchProgress`` updates for the caller's
/// closure. Updates are made under one lock, so calls never overlap and counts
/// never go backwards.
final class ProgressReporter: Sendable {
    private let callback: @Sendable (PrefetchProgress) -> Void
    private let observer: TransferObserver
    private let started: ContinuousClock.Instant
    private let state: Mutex<PrefetchProgress>

    init(total: Int, observer: TransferObserver, started: ContinuousClock.Instant, callback: @escaping @Sendable (PrefetchProgress) -> Void) {
        self.callback = callback
        self.observer = observer
        self.started = started
        state = Mutex(PrefetchProgress(totalAssets: total))
    }

    func begin() {
        update { _ in true }
    }

    func finished(_ record: AssetRecord) {
        update { progress in
            progress.completedAssets += 1
            if record.outcome == .failed { progress.failedAssets += 1 }
            progress.finished = record
            return true
        }
    }

    /// From a ticker: tells only when bytes arrived since the last update.
    func bytesArrived() {
        update { progress in
            progress.finished = nil
            return observer.receivedBytes != progress.receivedBytes
        }
    }

    /// Sends an update every ~100 ms while bytes keep arriving, until cancelled.
    func tick() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(100))
            bytesArrived()
        }
    }

    private func update(_ change: (inout PrefetchProgress) -> Bool) {
        state.withLock { progress in
            guard change(&progress) else { return }
            progress.receivedBytes = observer.receivedBytes
            progress.elapsed = ContinuousClock.now - started
            callback(progress)
        }
    }
}
