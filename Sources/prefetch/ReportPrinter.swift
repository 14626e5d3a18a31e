import AssetCache
import Foundation

/// Writes a report for people (a summary and the discards) or for programs (`--json`).
struct ReportPrinter {
    var options: CommonOptions

    func print(_ report: PrefetchReport) {
        if options.json {
            FileHandle.standardOutput.write(Data(report.prettyJSON() + [0x0A]))
            return
        }
        if options.quiet { return }
        var lines = [summary(report)]
        for message in report.messages where options.verbose || message.verdict.status == .discarded {
            lines.append(line(for: message))
        }
        FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    }

    private func summary(_ report: PrefetchReport) -> String {
        let totals = report.totals
        return "\(totals.messages) messages: \(totals.ready) ready, \(totals.discarded) discarded, "
            + "\(totals.deferred) deferred, \(totals.expired) expired; \(totals.assets) assets, "
            + "\(ByteCount.format(totals.downloadedBytes)) downloaded in "
            + String(format: "%.2f s", Double(report.durationMs) / 1000)
    }

    private func line(for message: MessageReport) -> String {
        var text = "  \(message.verdict.status.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)) \(message.id)"
        if let reason = message.verdict.reason { text += "  \(reason.rawValue)" }
        if let detail = message.verdict.detail { text += ": \(detail)" }
        if let url = message.verdict.failingURL, message.verdict.detail?.contains(url.string) != true { text += " (\(url))" }
        return text
    }
}

enum ByteCount {
    static func format(_ bytes: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(bytes) B" : String(format: "%.1f ", value) + units[unit]
    }
}
