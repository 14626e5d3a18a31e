import AssetCache
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// `run`'s live progress on stderr: assets done of total, bytes, rate, failures,
/// redrawn in place at most ten times a second and erased when the run ends.
/// Only on a terminal, and never with `--quiet` or `--json`.
final class ProgressLine: Sendable {
    private let console: Console
    private let style: TextStyle
    private let lastDraw = Mutex<ContinuousClock.Instant?>(nil)
    static let interval = Duration.milliseconds(100)

    /// nil when no progress should be shown.
    static func start(quiet: Bool, json: Bool, console: Console = .standardError) -> ProgressLine? {
        let environment = ProcessInfo.processInfo.environment
        guard !quiet, !json, console.isTerminal, environment["TERM"] != "dumb" else { return nil }
        return ProgressLine(console: console, style: .forDescriptor(console.descriptor, environment: environment))
    }

    init(console: Console, style: TextStyle) {
        self.console = console
        self.style = style
    }

    /// For `PrefetchOptions.progress`.
    var callback: @Sendable (PrefetchProgress) -> Void {
        { [self] progress in update(progress) }
    }

    func update(_ progress: PrefetchProgress) {
        let now = ContinuousClock.now
        let due = lastDraw.withLock { last in
            // The last asset is always drawn, so the line never ends short of it.
            guard last.map({ now - $0 >= Self.interval }) ?? true
                || progress.completedAssets == progress.totalAssets else { return false }
            last = now
            return true
        }
        if due { console.showStatus(text(progress)) }
    }

    func finish() {
        console.clearStatus()
    }

    func text(_ progress: PrefetchProgress) -> String {
        let line = "prefetch: \(progress.completedAssets)/\(progress.totalAssets) assets, "
            + "\(ByteCount.format(progress.receivedBytes)) at \(ByteCount.format(Int64(progress.bytesPerSecond)))/s"
        let failed = progress.failedAssets > 0 ? ", \(progress.failedAssets) failed" : ""
        // A line that wraps can no longer be redrawn in place: cut it, colourless.
        if let width = console.width, line.count + failed.count >= width {
            return String((line + failed).prefix(max(0, width - 1)))
        }
        return line + (failed.isEmpty ? "" : ", " + style.red(String(failed.dropFirst(2))))
    }
}
