import ArgumentParser
import AssetCache
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Glibc

struct Verify: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Re-hash every object and check every tree and ref; exit 1 if anything is wrong.")

    @OptionGroup var common: CommonOptions

    @Flag(help: "Remove what is broken, so that the next run fetches it again.")
    var repair = false

    @Option(help: ArgumentHelp("With --repair: wait up to this many seconds for another run's lock.", valueName: "seconds"))
    var wait: Double = 0

    func run() throws {
        let problems: [CacheProblem]
        do throws(CommandFailure) {
            // Checking only reads; repairing removes files, so it is a writer.
            let store = repair ? try common.openWriter(wait: wait) : try common.openReader()
            guard let store else {
                if !common.quiet { print("no cache at \(TerminalText.safe(common.cacheDirectory)) yet: nothing to verify") }
                problems = []
                return
            }
            problems = store.verify()
            if repair { store.repair(problems) }
            for problem in problems {
                // A problem names files and URLs found in the cache: escaped.
                Console.standardError.writeLine("prefetch: \(TerminalText.safe("\(problem)"))\(repair ? " (removed)" : "")")
            }
            if problems.isEmpty && !common.quiet {
                let usage = store.usage()
                print("ok: \(usage.objects) objects, \(usage.trees) trees, \(usage.refs) refs verified")
            }
        } catch {
            throw error.report()
        }
        if !problems.isEmpty { throw ExitCode(ExitStatus.someDiscarded) }
    }
}
