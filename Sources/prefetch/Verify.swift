import ArgumentParser
import AssetCache
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

struct Verify: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Re-hash every object and check every tree and ref; exit 1 if anything is wrong.")

    @OptionGroup var common: CommonOptions

    @Flag(help: "Print the counts and every problem (its kind, its path, what --repair removes for it) as JSON on stdout.")
    var json = false

    @Flag(help: "Remove what is broken, so that the next run fetches it again.")
    var repair = false

    @Option(help: ArgumentHelp("With --repair: wait up to this many seconds for another run's lock.", valueName: "seconds"))
    var wait = Seconds(0)

    func run() throws {
        let problems: [CacheProblem]
        do throws(CommandFailure) {
            // Checking only reads; repairing removes files, so it is a writer.
            let store = repair ? try common.openExistingWriter(wait: wait.value) : try common.openReader()
            let found = store?.verify() ?? []
            problems = repair ? store?.repair(found) ?? found : found
            if repair, let store {
                // The index must not name what was just removed.
                do {
                    try store.refreshReadinessIndex(by: "verify")
                } catch {
                    throw CommandFailure(error)
                }
            }
            let usage = store?.usage() ?? CacheUsage()
            if json {
                writeJSON(exists: store != nil, usage: usage, problems: problems) { Console.standardOutput.write($0) }
            } else {
                for problem in problems {
                    CommandFailure(message: "\(problem)\(repair ? outcome(of: problem) : "")", status: ExitStatus.someDiscarded).write()
                }
                if !problems.isEmpty { summary(of: problems).write() }
                if problems.isEmpty && !common.quiet {
                    print(store == nil
                        ? "no cache at \(TerminalText.safe(common.cacheDirectory)) yet: nothing to verify"
                        : "ok: \(Plural.count(usage.objects, "object")), \(Plural.count(usage.trees, "tree")), \(Plural.count(usage.refs, "ref")) verified")
                }
            }
        } catch {
            throw error.report()
        }
        if !problems.isEmpty { throw ExitCode(ExitStatus.someDiscarded) }
    }

    /// The last lines: how many problems of which kind, and the command that
    /// removes them (or, after a repair, what it left and why).
    private func summary(of problems: [CacheProblem]) -> CommandFailure {
        var counts: [(kind: String, count: Int)] = []
        for problem in problems {
            if let index = counts.firstIndex(where: { $0.kind == problem.kind.rawValue }) {
                counts[index].count += 1
            } else {
                counts.append((problem.kind.rawValue, 1))
            }
        }
        let kinds = counts.map { "\($0.count) \($0.kind)" }.joined(separator: ", ")
        var message = "\(Plural.count(problems.count, "problem")) found (\(kinds))"
        let kept = problems.filter(\.leased).count
        guard repair else {
            return CommandFailure(
                message: message, status: ExitStatus.someDiscarded,
                hint: "'\(repairCommand)' removes what is broken; the next run fetches it again")
        }
        message += ": \(problems.count - kept) removed; the next run fetches \(problems.count - kept == 1 ? "it" : "them") again"
        guard kept > 0 else { return CommandFailure(message: message, status: ExitStatus.someDiscarded) }
        return CommandFailure(
            message: message + "; \(kept) kept", status: ExitStatus.someDiscarded,
            hint: "a display app leases what was kept; run '\(repairCommand)' again once it is released")
    }

    /// `prefetch verify --repair`, with the cache directory when it was named.
    private var repairCommand: String {
        guard let directory = common.cacheDir else { return "prefetch verify --repair" }
        return "prefetch verify --repair --cache-dir \(ShellWord.quoted(directory))"
    }

    /// What --repair did about a problem, after its sentence.
    private func outcome(of problem: CacheProblem) -> String {
        problem.leased ? " (kept: a display app leases it; a later --repair removes it once released)" : " (removed)"
    }

    /// `--json`: what the text says, for programs; after a repair, the counts are
    /// of what is left.
    private func writeJSON(exists: Bool, usage: CacheUsage, problems: [CacheProblem], _ write: @escaping ([UInt8]) -> Void) {
        var writer = PrettyJSON(flush: write)
        writer.object { json in
            json.key("cache_dir"); json.string(common.cacheDirectory)
            json.key("exists"); json.bool(exists)
            json.key("ok"); json.bool(problems.isEmpty)
            json.key("objects"); json.integer(usage.objects)
            json.key("trees"); json.integer(usage.trees)
            json.key("refs"); json.integer(usage.refs)
            json.key("problems")
            json.array(problems) { json, problem in
                json.object { json in
                    json.key("kind"); json.string(problem.kind.rawValue)
                    json.key("path"); json.string(problem.path)
                    json.key("problem"); json.string(problem.problem)
                    // What --repair removes for it, so that the next run fetches the asset again.
                    json.key("repair_removes"); json.array(problem.remove) { json, path in json.string(path) }
                    json.key("removed"); json.bool(repair && !problem.leased)
                }
            }
            json.key("repaired"); json.bool(repair && problems.contains { !$0.leased })
        }
        writer.flushNow()
        write([0x0A])
    }
}
