import ArgumentParser
import AssetCache

struct GC: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gc",
        abstract: "Evict least recently used assets down to the budget; sweep unreferenced objects and tmp/.")

    @OptionGroup var common: CommonOptions

    @Flag(help: "Print what was evicted and removed, and the bytes in use against the budget, as JSON on stdout.")
    var json = false

    @Option(help: ArgumentHelp(
        "Collect down to this budget this once instead of the remembered one (K, M, G suffixes); 0 removes all that the last manifest does not need and no display app leases.",
        valueName: "size"))
    var budget: ByteSize?

    @Option(help: ArgumentHelp("Wait up to this many seconds for another run's lock.", valueName: "seconds"))
    var wait = Seconds(0)

    func run() throws {
        do throws(CommandFailure) {
            // Opening as a writer sweeps tmp/ (but recent partial downloads).
            guard let store = try common.openExistingWriter(wait: wait.value) else {
                if !common.quiet && !json {
                    print("no cache at \(TerminalText.safe(common.cacheDirectory)) yet: nothing to collect")
                }
                let nothing = GarbageCollection(budget: budget?.bytes ?? CacheState.defaultBudget, bytesBefore: 0, bytesAfter: 0)
                if json { writeJSON(nothing) { Console.standardOutput.write($0) } }
                return
            }
            let result = store.collectGarbage(budget: budget?.bytes)
            // The index must not name what was just removed.
            do {
                try store.refreshReadinessIndex(by: "gc")
            } catch {
                throw CommandFailure(error)
            }
            if result.neededExceedBudget {
                common.logger.warning("the last manifest's assets alone exceed the budget of \(ByteCount.format(result.budget)); they were kept")
            }
            if json {
                writeJSON(result) { Console.standardOutput.write($0) }
            } else if !common.quiet {
                let leased = result.keptLeased == 0 ? "" : "; kept \(result.keptLeased) leased by display apps (\(ByteCount.format(result.keptLeasedBytes)))"
                print("evicted \(Plural.count(result.evictedRefs, "ref")), removed \(Plural.count(result.removedObjects, "object")) and \(Plural.count(result.removedTrees, "tree"))\(leased); "
                    + "\(ByteCount.format(result.bytesAfter)) of \(ByteCount.format(result.budget)) budget in use")
            }
        } catch {
            throw error.report()
        }
    }

    /// `--json`: the numbers of the text line, and what it leaves out.
    private func writeJSON(_ result: GarbageCollection, _ write: @escaping ([UInt8]) -> Void) {
        var writer = PrettyJSON(flush: write)
        writer.object { json in
            json.key("cache_dir"); json.string(common.cacheDirectory)
            result.writeRemovals(to: &json)
            json.key("bytes_before"); json.integer(result.bytesBefore)
            json.key("bytes_after"); json.integer(result.bytesAfter)
            json.key("budget"); json.integer(result.budget)
            // The last manifest's assets alone exceed the budget; they were kept.
            json.key("needed_exceed_budget"); json.bool(result.neededExceedBudget)
        }
        writer.flushNow()
        write([0x0A])
    }
}
