import ArgumentParser
import AssetCache

struct GC: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gc",
        abstract: "Evict least recently used assets down to the budget; sweep unreferenced objects and tmp/.")

    @OptionGroup var common: CommonOptions

    @Flag(help: "Print what was evicted and removed, and the bytes in use against the budget, as JSON on stdout.")
    var json = false

    @Option(help: ArgumentHelp("Wait up to this many seconds for another run's lock.", valueName: "seconds"))
    var wait: Double = 0

    /// `--json`: the collection's numbers, as the text line gives them.
    struct Output: Encodable {
        var cache_dir: String
        var budget: Int64
        var bytes_before: Int64
        var bytes_after: Int64
        var evicted_refs: Int
        var removed_objects: Int
        var removed_trees: Int
        /// The last manifest's assets alone exceed the budget; they were kept.
        var needed_exceed_budget: Bool
    }

    func run() throws {
        do throws(CommandFailure) {
            // Opening as a writer sweeps tmp/ (but recent partial downloads).
            let store = try common.openWriter(wait: wait)
            let result = store.collectGarbage()
            if result.neededExceedBudget {
                common.logger.warning("the last manifest's assets alone exceed the budget of \(ByteCount.format(result.budget)); they were kept")
            }
            if json {
                try JSONOutput.write(Output(
                    cache_dir: common.cacheDirectory, budget: result.budget, bytes_before: result.bytesBefore,
                    bytes_after: result.bytesAfter, evicted_refs: result.evictedRefs, removed_objects: result.removedObjects,
                    removed_trees: result.removedTrees, needed_exceed_budget: result.neededExceedBudget))
            } else if !common.quiet {
                print("evicted \(result.evictedRefs) refs, removed \(result.removedObjects) objects and \(result.removedTrees) trees; "
                    + "\(ByteCount.format(result.bytesAfter)) of \(ByteCount.format(result.budget)) budget in use")
            }
        } catch {
            throw error.report()
        }
    }
}
