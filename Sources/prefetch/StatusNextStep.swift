#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import AssetCache

/// The last lines of `prefetch status`: what to do next, when there is
/// something (docs/cli.md). A status that only counts leaves a new user
/// guessing whether anything is wrong.
struct StatusNextStep {
    var lastRun: CacheState.LastRun?
    var lastFailure: FailedRun?
    var running: RunInProgress?
    var now: Double

    /// Two missed periods of the half-hourly timer the README sets up.
    static let dueAfter: Double = 3600

    var lines: [String] {
        if let running {
            let since = Date(timeIntervalSince1970: running.startedAt).formatted(.iso8601)
            return ["now     a run is in progress (pid \(running.pid), since \(since)); 'prefetch ready ID --wait SECONDS' waits for a message"]
        }
        if lastFailure != nil {
            // The error line above says why; the whole of what the run printed is where it ran.
            return ["next    fix what the error names, then 'prefetch run'; a timer's runs print to 'journalctl -u prefetch.service'"]
        }
        guard let lastRun else {
            return ["next    'prefetch run MANIFEST' fills the cache"]
        }
        var lines: [String] = []
        if lastRun.discarded > 0 {
            lines.append("next    'prefetch ready' says why \(Plural.count(lastRun.discarded, "message was", plural: "messages were")) discarded")
        }
        let age = now - lastRun.finishedAt
        if age > Self.dueAfter {
            lines.append("next    a run is due: the last ended \(Self.duration(age)) ago; is the timer on? (systemctl list-timers prefetch.timer)")
        }
        return lines
    }

    /// "3 h", "2 days": the age a person reads at a glance.
    static func duration(_ seconds: Double) -> String {
        let hours = Int(seconds / 3600)
        return hours < 48 ? "\(hours) h" : "\(hours / 24) days"
    }
}
