import ArgumentParser
import AssetCache
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

struct Ready: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ready",
        abstract: "Whether messages are ready and which files to show, from the cache's readiness index: no network, no writes.",
        discussion: """
            Exit 0 when every MESSAGE_ID named is ready (or none is named), 1 when one of them is not, \
            2 when one is not in the index, when there is no index yet, or when --cache-dir does not exist. \
            With --wait, the answer waits until every MESSAGE_ID is ready (0), no run is in progress or \
            requested and one is not (1, or 2 when not in the index), or SECONDS pass (75).
            """)

    @Argument(help: ArgumentHelp("Messages to answer for; every message of the index when none is given.", valueName: "message-id"))
    var ids: [String] = []

    @OptionGroup var common: CommonOptions

    @Flag(help: "Print the index's objects of those messages, a JSON array, on stdout.")
    var json = false

    @Option(help: ArgumentHelp(
        "Wait up to this many seconds for the messages named to be ready, across a run in progress or about to start; 75 when time is up.",
        valueName: "seconds"))
    var wait: Seconds?

    @Option(help: ArgumentHelp(
        "With --wait: the session-start request directory, whose requests count as a run about to start.",
        discussion: "Default: $PREFETCH_REQUEST_DIR, else /run/prefetch/session-start.",
        valueName: "dir"))
    var requestDir: String?

    func validate() throws {
        if wait != nil && ids.isEmpty { throw ValidationError("--wait needs the MESSAGE_IDs to wait for") }
        if requestDir != nil && wait == nil { throw ValidationError("--request-dir is for --wait") }
    }

    func run() throws {
        let status: Int32
        do throws(CommandFailure) {
            let index = if let wait { try waitForIndex(wait) } else { try readIndex() }
            status = try answer(from: index)
        } catch {
            throw error.report()
        }
        if status != ExitStatus.ok { throw ExitCode(status) }
    }

    /// The index as it is now.
    private func readIndex() throws(CommandFailure) -> ReadinessIndex {
        let store = try common.openReader()
        // Only what is printed is kept: the messages named, and triggers for --json.
        guard let index = try common.readIndex(from: store, only: ids.isEmpty ? nil : Set(ids), triggers: json) else {
            throw CommandFailure(
                message: "no readiness index in \(common.cacheDirectory) yet: run `prefetch run MANIFEST` first", status: ExitStatus.usage)
        }
        return index
    }

    /// The index once it answers for every message named (ReadinessWait), or
    /// exit 75 naming what is still awaited.
    private func waitForIndex(_ seconds: Seconds) throws(CommandFailure) -> ReadinessIndex {
        let requests = requestDir ?? SessionStartRequests.directory(environment: ProcessInfo.processInfo.environment)
        let waiting = ReadinessWait(cacheDirectory: common.cacheDirectory, ids: ids, requestDirectory: requests, logger: common.logger)
        let outcome: ReadinessWait.Outcome
        do {
            outcome = try waiting.wait(timeout: seconds.value)
        } catch {
            switch error {
            case .cache(let storeError): throw CommandFailure(storeError)
            case .index, .watch: throw CommandFailure(message: error.description, status: ExitStatus.usage)
            }
        }
        switch outcome {
        case .ready(let index), .decided(let index, _):
            return index
        case .timedOut(let index, let run):
            throw CommandFailure(
                message: "waited \(seconds) s: \(awaited(in: index))",
                status: ExitStatus.locked, hint: run.map { "a run is in progress (pid \($0.pid), started at \(RFC3339Date.format($0.startedAt)))" }
                    ?? "no run is in progress: one is started by `prefetch run` or, for a display app, `prefetch session-start`")
        }
    }

    /// The messages named that are not ready, with what the index says of each.
    private func awaited(in index: ReadinessIndex?) -> String {
        let known = Dictionary((index?.messages ?? []).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let missing = ids.filter { known[$0]?.status != .ready }.map { id in
            guard let message = known[id] else { return "'\(TerminalText.safe(id))' (not in the index yet)" }
            let reason = message.reason.map { ", \(TerminalText.safe($0))" } ?? ""
            return "'\(TerminalText.safe(id))' (\(message.status.rawValue)\(reason))"
        }
        let what = missing.count == 1 ? "is" : "are"
        return "\(missing.joined(separator: ", ")) \(what) not ready"
    }

    /// Prints the messages asked for; the exit status they give.
    private func answer(from index: ReadinessIndex) throws(CommandFailure) -> Int32 {
        let (chosen, unknown) = select(index.messages)
        if json {
            writeJSON(chosen.map { index.messages[$0] })
        } else if !common.quiet {
            writeText(chosen.map { index.messages[$0] })
        }
        if !unknown.isEmpty {
            let names = unknown.map { "'\($0)'" }.joined(separator: ", ")
            throw CommandFailure(
                message: "not in the readiness index: \(names); it lists the messages of \(Self.source(of: index))", status: ExitStatus.usage)
        }
        let allReady = !chosen.contains { index.messages[$0].status != .ready }
        return ids.isEmpty || allReady ? ExitStatus.ok : ExitStatus.someDiscarded
    }

    /// The positions of the messages asked for, in the order asked (every one
    /// when none is named), and the ids the index does not have.
    private func select(_ messages: [ReadinessIndex.Message]) -> (chosen: [Int], unknown: [String]) {
        guard !ids.isEmpty else { return (Array(messages.indices), []) }
        var position: [String: Int] = [:]
        position.reserveCapacity(messages.count)
        for index in messages.indices { position[messages[index].id] = index }
        var chosen: [Int] = []
        var unknown: [String] = []
        for id in ids {
            if let found = position[id] { chosen.append(found) } else { unknown.append(id) }
        }
        return (chosen, unknown)
    }

    /// The manifest the index was computed from, for the error naming an unknown id.
    static func source(of index: ReadinessIndex) -> String {
        guard let manifest = index.manifest else { return "the last run" }
        return manifest.url ?? manifest.path ?? "the manifest read from stdin"
    }

    /// One line per message, tab-separated: the id, the status, then for a
    /// ready message the files to show (a ZIP's index.html, else its tree),
    /// for a discarded one the reason and what was wrong, for a deferred one
    /// the reason a run's limit gave (none for `prefetch: false`). Everything from the
    /// index is escaped: it is read from the cache directory.
    private func writeText(_ messages: [ReadinessIndex.Message]) {
        var text = ""
        for message in messages {
            text += TerminalText.safe(message.id) + "\t" + message.status.rawValue
            switch message.status {
            case .ready:
                for asset in message.assets {
                    if let shown = asset.entry ?? asset.path { text += "\t" + TerminalText.safe(shown) }
                }
            case .discarded:
                if let reason = message.reason { text += "\t" + TerminalText.safe(reason) }
                if let detail = message.detail { text += "\t" + TerminalText.safe(detail) }
            case .deferred:
                // byte_budget, metered or storage_low: a later run fetches it.
                if let reason = message.reason { text += "\t" + TerminalText.safe(reason) }
            case .expired:
                break
            }
            text += "\n"
            if text.utf8.count >= 64 * 1024 {
                Console.standardOutput.write(text.utf8)
                text = ""
            }
        }
        Console.standardOutput.write(text.utf8)
    }

    /// The messages' objects as the index holds them, in a JSON array.
    private func writeJSON(_ messages: [ReadinessIndex.Message]) {
        var writer = PrettyJSON { Console.standardOutput.write($0) }
        writer.array(messages) { json, message in message.write(to: &json) }
        writer.flushNow()
        Console.standardOutput.write([0x0A])
    }
}
