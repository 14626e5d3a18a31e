import ArgumentParser
import AssetCache
import Foundation

struct Verify: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Re-hash every object and check every tree and ref; exit 1 if anything is wrong.")

    @OptionGroup var common: CommonOptions

    @Flag(help: "Print the counts and every problem (its kind, its path, what --repair removes for it) as JSON on stdout.")
    var json = false

    @Flag(help: "Remove what is broken, so that the next run fetches it again.")
    var repair = false

    @Option(help: ArgumentHelp("With --repair: wait up to this many seconds for another run's lock.", valueName: "seconds"))
    var wait: Double = 0

    /// `--json`: the same findings as the text, for programs.
    struct Output: Encodable {
        var cache_dir: String
        var exists: Bool
        var ok: Bool
        var objects: Int
        var trees: Int
        var refs: Int
        var problems: [Problem]
        var repaired: Bool

        struct Problem: Encodable {
            var kind: String
            var path: String
            var problem: String
            /// What `--repair` removes for it, so that the next run fetches the asset again.
            var repair_removes: [String]
            var removed: Bool
        }
    }

    func run() throws {
        let problems: [CacheProblem]
        do throws(CommandFailure) {
            // Checking only reads; repairing removes files, so it is a writer.
            let store = repair ? try common.openWriter(wait: wait) : try common.openReader()
            problems = store?.verify() ?? []
            if repair { store?.repair(problems) }
            let usage = store?.usage() ?? CacheUsage()
            if json {
                try JSONOutput.write(Output(
                    cache_dir: common.cacheDirectory, exists: store != nil, ok: problems.isEmpty,
                    objects: usage.objects, trees: usage.trees, refs: usage.refs,
                    problems: problems.map {
                        Output.Problem(kind: $0.kind.rawValue, path: $0.path, problem: $0.problem, repair_removes: $0.remove, removed: repair)
                    },
                    repaired: repair && !problems.isEmpty))
            } else {
                for problem in problems {
                    FileHandle.standardError.write(Data("prefetch: \(problem)\(repair ? " (removed)" : "")\n".utf8))
                }
                if problems.isEmpty && !common.quiet {
                    print(store == nil
                        ? "no cache at \(common.cacheDirectory) yet: nothing to verify"
                        : "ok: \(usage.objects) objects, \(usage.trees) trees, \(usage.refs) refs verified")
                }
            }
        } catch {
            throw error.report()
        }
        if !problems.isEmpty { throw ExitCode(ExitStatus.someDiscarded) }
    }
}
