import AssetCache
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

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
        // In pieces: the report of 100,000 assets is tens of megabytes.
        if options.json {
            report.writePrettyJSON { Console.standardOutput.write($0) }
            Console.standardOutput.write([0x0A])
            return
        }
        if quiet { return }
        writeText(report) { Console.standardOutput.write($0.utf8) }
    }

    /// The summary, then one line per discarded message and per message a
    /// download limit deferred (every message with `--verbose`): status, id,
    /// reason, the failing URL and what went wrong.
    /// Handed to `write` in pieces of about 64 KiB.
    func writeText(_ report: PrefetchReport, to write: (String) -> Void) {
        // By index: filtering the messages copied every one (its strings and arrays retained).
        let messages = report.messages
        // Not a message deferred to display time: that is what its manifest asked.
        let shown = messages.indices.filter { options.verbose || ![nil, .notPrefetched].contains(messages[$0].verdict.reason) }
        let idWidth = min(32, shown.map { TerminalText.safe(messages[$0].id).count }.max() ?? 0)
        var text = summary(report) + "\n"
        for index in shown {
            text += line(for: messages[index], id: TerminalText.safe(messages[index].id), idWidth: idWidth) + "\n"
            if text.utf8.count >= 64 * 1024 {
                write(text)
                text = ""
            }
        }
        write(text)
    }

    func summary(_ report: PrefetchReport) -> String {
        let totals = report.totals
        let counts = [
            count(totals.ready, "ready", style.green),
            count(totals.discarded, "discarded", style.red),
            count(totals.deferred, "deferred", style.yellow),
            count(totals.expired, "expired", { $0 }),
        ]
        return "\(Plural.count(totals.messages, "message")): " + counts.joined(separator: ", ")
            + "; \(Plural.count(totals.assets, "asset")), \(ByteCount.format(totals.downloadedBytes)) downloaded in "
            + DecimalText.fixed(Double(report.durationMs) / 1000, digits: 2) + " s"
    }

    private func count(_ value: Int, _ label: String, _ paint: (String) -> String) -> String {
        value == 0 ? "0 \(label)" : paint("\(value) \(label)")
    }

    /// `id` is the message's id as it may be printed.
    func line(for message: MessageReport, id: String, idWidth: Int) -> String {
        let verdict = message.verdict
        let status = verdict.status.rawValue.padded(to: 9)
        let painted = switch verdict.status {
        case .ready: style.green(status)
        case .discarded: style.red(status)
        case .deferred: style.yellow(status)
        case .expired: style.dim(status)
        }
        // Ids, URLs and details come from the manifest and the servers: `safe`
        // escapes them and masks passwords in URLs.
        var text = "  \(painted)  " + id.padded(to: idWidth)
        if let reason = verdict.reason { text += "  \(reason.rawValue)" }
        if let url = verdict.failingURL { text += "  " + TerminalText.safe(url.string) }
        if let detail = verdict.detail {
            text += style.dim("  (" + TerminalText.safe(Self.shorten(detail, naming: verdict.failingURL)) + ")")
        }
        // A ready message's first local file, where a user would look for it.
        if verdict.status == .ready, let asset = verdict.assets.first { text += style.dim("  " + TerminalText.safe(Self.shownFile(asset))) }
        return text.trimmingTrailingSpaces()
    }

    /// The file to show, as `prefetch ready` names it: for a ZIP, its tree's
    /// `index.html` when the tree has one at its root (a regular file, not a
    /// link), else the tree itself.
    static func shownFile(_ asset: MessageVerdict.LocalAsset) -> String {
        guard asset.kind == .archive else { return asset.path }
        let page = asset.path + "/index.html"
        var info = stat()
        return lstat(page, &info) == 0 && info.st_mode & S_IFMT == S_IFREG ? page : asset.path
    }

    /// The URL has a column of its own; the detail need not say it again.
    static func shorten(_ detail: String, naming url: AssetURL?) -> String {
        guard let url else { return detail }
        return detail.replacingBytes(" from \(url)", with: "").replacingBytes(url.redacted, with: "it")
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
    /// Every `target` replaced, matching UTF-8 bytes. StringProcessing's
    /// `replacing` compares Characters: a text plan of 10,000 discarded messages
    /// spent 50% of its time there.
    fileprivate func replacingBytes(_ target: String, with replacement: String) -> String {
        let text = Array(utf8), pattern = Array(target.utf8)
        guard !pattern.isEmpty, text.count >= pattern.count else { return self }
        var result: [UInt8] = []
        var start = 0, index = 0
        while index + pattern.count <= text.count {
            if text[index] == pattern[0], text[index..<index + pattern.count].elementsEqual(pattern) {
                if result.isEmpty { result.reserveCapacity(text.count) }
                result += text[start..<index]
                result += replacement.utf8
                index += pattern.count
                start = index
            } else {
                index += 1
            }
        }
        guard start > 0 else { return self }
        result += text[start...]
        return String(decoding: result, as: UTF8.self)
    }

    /// Spaces after the text up to `width` characters, for columns.
    fileprivate func padded(to width: Int) -> String {
        self + String(repeating: " ", count: max(0, width - count))
    }

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
        return unit == 0 ? "\(bytes) B" : DecimalText.fixed(value, digits: 1) + " " + units[unit]
    }
}
