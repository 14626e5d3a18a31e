import AssetCache
import Foundation

/// Writes a report for people (a summary and the discards) or for programs (`--json`).
struct ReportPrinter {
    var options: ReportOptions
    var quiet: Bool
    var style = TextStyle.forDescriptor(STDOUT_FILENO)

    init(options: ReportOptions, quiet: Bool) {
        self.options = options
        self.quiet = quiet
    }

    func print(_ report: PrefetchReport) {
        warnAboutStorage(report)
        if options.json {
            FileHandle.standardOutput.write(Data(report.prettyJSON() + [0x0A]))
            return
        }
        if quiet { return }
        FileHandle.standardOutput.write(Data(text(report).utf8))
    }

    /// The summary, then one line per discarded message (every message with
    /// `--verbose`): status, id, reason, the failing URL and what went wrong.
    func text(_ report: PrefetchReport) -> String {
        let shown = report.messages.filter { options.verbose || $0.verdict.status == .discarded }
        let idWidth = min(32, shown.map(\.id.count).max() ?? 0)
        var lines = [summary(report)]
        lines += shown.map { line(for: $0, idWidth: idWidth) }
        return lines.joined(separator: "\n") + "\n"
    }

    func summary(_ report: PrefetchReport) -> String {
        let totals = report.totals
        let counts = [
            count(totals.ready, "ready", style.green),
            count(totals.discarded, "discarded", style.red),
            count(totals.deferred, "deferred", style.yellow),
            count(totals.expired, "expired", { $0 }),
        ]
        return "\(totals.messages) messages: " + counts.joined(separator: ", ")
            + "; \(totals.assets) assets, \(ByteCount.format(totals.downloadedBytes)) downloaded in "
            + String(format: "%.2f s", Double(report.durationMs) / 1000)
    }

    private func count(_ value: Int, _ label: String, _ paint: (String) -> String) -> String {
        value == 0 ? "0 \(label)" : paint("\(value) \(label)")
    }

    func line(for message: MessageReport, idWidth: Int) -> String {
        let verdict = message.verdict
        let status = verdict.status.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)
        let painted = switch verdict.status {
        case .ready: style.green(status)
        case .discarded: style.red(status)
        case .deferred: style.yellow(status)
        case .expired: style.dim(status)
        }
        var text = "  \(painted)  " + message.id.padding(toLength: max(idWidth, message.id.count), withPad: " ", startingAt: 0)
        if let reason = verdict.reason { text += "  \(reason.rawValue)" }
        if let url = verdict.failingURL { text += "  \(url)" }
        if let detail = verdict.detail { text += style.dim("  (\(Self.shorten(detail, naming: verdict.failingURL)))") }
        // A ready message's first local file, where a user would look for it.
        if verdict.status == .ready, let path = verdict.assets.first?.path { text += style.dim("  \(path)") }
        return text.trimmingTrailingSpaces()
    }

    /// The URL has a column of its own; the detail need not say it again.
    static func shorten(_ detail: String, naming url: AssetURL?) -> String {
        guard let url else { return detail }
        return detail.replacingOccurrences(of: " from \(url)", with: "").replacingOccurrences(of: url.string, with: "it")
    }

    /// Exit 74 deserves a sentence on stderr, even with `--json` or `--quiet`.
    private func warnAboutStorage(_ report: PrefetchReport) {
        guard let failure = report.assets.lazy.compactMap(\.failure).first(where: { $0.kind == .storage }) else { return }
        CommandFailure(
            message: "the cache at \(report.cacheDirectory) could not be written (\(failure.message)); "
                + "free some disk space or fix the directory's permissions, then run again",
            status: ExitStatus.storage
        ).write()
    }
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
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
