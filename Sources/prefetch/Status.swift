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

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Size, counts, budget, free space and the last run of the cache.")

    @OptionGroup var common: CommonOptions

    @Flag(help: "Print the cache's size, counts, budget, free space and last run as JSON on stdout.")
    var json = false

    @Option(help: ArgumentHelp(
        "The free-space floor to show, as run's --min-free (a size, or a percentage of the file system).",
        discussion: "Default: the configuration file's min-free, else the smaller of 10% and 500M, as a run would keep.",
        valueName: "size|percent"))
    var minFree = MinFreeArgument(.default)

    struct Output {
        var cache_dir: String
        var exists: Bool
        var bytes: Int64
        var budget: Int64
        var objects: Int
        var trees: Int
        var refs: Int
        /// Downloads in flight, interrupted ones kept for resume, leftovers the next writer sweeps.
        var tmp_bytes: Int64
        /// The cache's file system: its size, what is free now, and the floor a run keeps free.
        var filesystem_bytes: Int64
        var free_bytes: Int64
        var min_free_bytes: Int64
        var last_run: CacheState.LastRun?
        /// A run that failed after the last that finished.
        var last_failure: FailedRun?

        /// Keys in the order docs/report.md lists them, as in every JSON output of
        /// prefetch; `last_run` is null before the first run and leaves out what
        /// only `gc` needs from state.json.
        func writeJSON(_ write: @escaping ([UInt8]) -> Void) {
            var writer = PrettyJSON(flush: write)
            writer.object { json in
                json.key("cache_dir"); json.string(cache_dir)
                json.key("exists"); json.bool(exists)
                json.key("bytes"); json.integer(bytes)
                json.key("budget"); json.integer(budget)
                json.key("objects"); json.integer(objects)
                json.key("trees"); json.integer(trees)
                json.key("refs"); json.integer(refs)
                json.key("tmp_bytes"); json.integer(tmp_bytes)
                json.key("filesystem_bytes"); json.integer(filesystem_bytes)
                json.key("free_bytes"); json.integer(free_bytes)
                json.key("min_free_bytes"); json.integer(min_free_bytes)
                json.key("last_run")
                if let run = last_run {
                    json.object { json in
                        json.key("finished_at"); json.number(run.finishedAt)
                        json.key("duration_ms"); json.integer(run.durationMs)
                        json.key("messages"); json.integer(run.messages)
                        json.key("ready"); json.integer(run.ready)
                        json.key("discarded"); json.integer(run.discarded)
                        json.key("deferred"); json.integer(run.deferred)
                        json.key("expired"); json.integer(run.expired)
                        json.key("assets"); json.integer(run.assets)
                        json.key("downloaded_bytes"); json.integer(run.downloadedBytes)
                    }
                } else {
                    json.null()
                }
                json.key("last_failure")
                if let failure = last_failure {
                    json.object { json in
                        json.key("failed_at"); json.number(failure.failedAt)
                        json.key("exit_status"); json.integer(Int(failure.exitStatus))
                        json.key("message"); json.string(failure.message)
                    }
                } else {
                    json.null()
                }
            }
            writer.flushNow()
            write([0x0A])
        }
    }

    func run() throws {
        do throws(CommandFailure) {
            let store = try common.openReader()
            let usage = store?.usage() ?? CacheUsage()
            let state = store?.readState() ?? CacheState()
            let space = store?.fileSystemSpace()
            let output = Output(
                cache_dir: common.cacheDirectory, exists: store != nil, bytes: usage.bytes, budget: state.budget,
                objects: usage.objects, trees: usage.trees, refs: usage.refs, tmp_bytes: usage.temporaryBytes,
                filesystem_bytes: space?.size ?? 0, free_bytes: space?.free ?? 0,
                min_free_bytes: space.map { minFree.minimum.floor(onFileSystemOf: $0.size) } ?? 0,
                last_run: state.lastRun, last_failure: store?.lastFailedRun())
            if json {
                output.writeJSON { Console.standardOutput.write($0) }
            } else if !common.quiet {
                let next = StatusNextStep(
                    lastRun: output.last_run, lastFailure: output.last_failure, running: store?.runInProgress(),
                    now: Date().timeIntervalSince1970)
                print(([text(output)] + next.lines).joined(separator: "\n"))
            }
        } catch {
            throw error.report()
        }
    }

    private func text(_ output: Output) -> String {
        let directory = TerminalText.safe(output.cache_dir)
        guard output.exists else { return "no cache at \(directory) yet" }
        let percent = output.budget > 0 ? Double(output.bytes) / Double(output.budget) * 100 : 0
        var lines = [
            "cache   \(directory)",
            "size    \(ByteCount.format(output.bytes)) of \(ByteCount.format(output.budget)) budget (\(DecimalText.fixed(percent, digits: 0))%)"
                + (output.tmp_bytes > 0 ? ", and \(ByteCount.format(output.tmp_bytes)) in tmp/" : ""),
            "holds   \(Plural.count(output.objects, "object")), \(Plural.count(output.trees, "unpacked tree")), \(Plural.count(output.refs, "ref"))",
            "disk    \(ByteCount.format(output.free_bytes)) free of \(ByteCount.format(output.filesystem_bytes)); runs keep "
                + "\(ByteCount.format(output.min_free_bytes)) free (--min-free)",
        ]
        if let run = output.last_run {
            let when = Date(timeIntervalSince1970: run.finishedAt).formatted(.iso8601)
            lines.append("last    \(when): \(Plural.count(run.messages, "message")), \(run.ready) ready, \(run.discarded) discarded, "
                + "\(ByteCount.format(run.downloadedBytes)) downloaded in \(run.durationMs) ms")
        } else {
            lines.append("last    no run yet")
        }
        if let failure = output.last_failure {
            let when = Date(timeIntervalSince1970: failure.failedAt).formatted(.iso8601)
            lines.append("failed  \(when), exit \(failure.exitStatus): \(TerminalText.safe(failure.message))")
        }
        return lines.joined(separator: "\n")
    }
}
