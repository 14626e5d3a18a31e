import ArgumentParser
import AssetCache

struct GC: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gc",
        abstract: "Evict least recently used assets down to the budget; sweep unreferenced objects and tmp/.")

    @OptionGroup var common: CommonOptions

    @Option(help: ArgumentHelp("Wait up to this many seconds for another run's lock.", valueName: "seconds"))
    var wait: Double = 0

    func run() throws {
        do throws(CommandFailure) {
            // Opening as a writer sweeps tmp/ (but recent partial downloads).
            let store = try common.openWriter(wait: wait)
            let state = store.readState()
            let result = store.collectGarbage(budget: state.budget, neededRefs: Set(state.lastRun?.needed ?? []))
            if result.neededExceedBudget {
                print("prefetch: warning: the last manifest's assets alone exceed the budget of \(ByteCount.format(result.budget)); they were kept")
            }
            if !common.quiet {
                print("evicted \(result.evictedRefs) refs, removed \(result.removedObjects) objects and \(result.removedTrees) trees; "
                    + "\(ByteCount.format(result.bytesAfter)) of \(ByteCount.format(result.budget)) budget in use")
            }
        } catch {
            throw error.report()
        }
    }
}
