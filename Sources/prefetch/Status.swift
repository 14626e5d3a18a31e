import ArgumentParser
import AssetCache
import Foundation

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Size, counts, budget and the last run of the cache.")

    @OptionGroup var common: CommonOptions

    @Flag(help: "Print the cache's size, counts, budget and last run as JSON on stdout.")
    var json = false

    struct Output: Encodable {
        var cache_dir: String
        var exists: Bool
        var bytes: Int64
        var budget: Int64
        var objects: Int
        var trees: Int
        var refs: Int
        /// Downloads in flight, interrupted ones kept for resume, leftovers the next writer sweeps.
        var tmp_bytes: Int64
        var last_run: CacheState.LastRun?
    }

    func run() throws {
        do throws(CommandFailure) {
            let store = try common.openReader()
            let usage = store?.usage() ?? CacheUsage()
            let state = store?.readState() ?? CacheState()
            let output = Output(
                cache_dir: common.cacheDirectory, exists: store != nil, bytes: usage.bytes, budget: state.budget,
                objects: usage.objects, trees: usage.trees, refs: usage.refs, tmp_bytes: usage.temporaryBytes,
                last_run: state.lastRun)
            if json {
                try JSONOutput.write(output)
            } else if !common.quiet {
                print(text(output))
            }
        } catch {
            throw error.report()
        }
    }

    private func text(_ output: Output) -> String {
        guard output.exists else { return "no cache at \(output.cache_dir) yet" }
        let percent = output.budget > 0 ? Double(output.bytes) / Double(output.budget) * 100 : 0
        var lines = [
            "cache   \(output.cache_dir)",
            "size    \(ByteCount.format(output.bytes)) of \(ByteCount.format(output.budget)) budget (\(String(format: "%.0f", percent))%)"
                + (output.tmp_bytes > 0 ? ", and \(ByteCount.format(output.tmp_bytes)) in tmp/" : ""),
            "holds   \(output.objects) objects, \(output.trees) unpacked trees, \(output.refs) refs",
        ]
        if let run = output.last_run {
            let when = Date(timeIntervalSince1970: run.finishedAt).formatted(.iso8601)
            lines.append("last    \(when): \(run.messages) messages, \(run.ready) ready, \(run.discarded) discarded, "
                + "\(ByteCount.format(run.downloadedBytes)) downloaded in \(run.durationMs) ms")
        } else {
            lines.append("last    no run yet")
        }
        return lines.joined(separator: "\n")
    }
}
