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

@main
struct Prefetch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prefetch",
        abstract: "Prefetch, validate and cache the assets of in-app messages.",
        // Also the man page's DESCRIPTION (make man): the exit codes belong there.
        discussion: """
            Exit codes of run and plan, the first that applies: 2 usage error, invalid manifest or \
            events file, or refused cache directory (nothing was changed); 77 the cache belongs to \
            another user or its permissions keep you out (nothing was changed); 75 another writer \
            holds the cache's lock; 69 the manifest URL could not be fetched (nothing was changed); \
            130 or 143 SIGINT or SIGTERM stopped the run cleanly, partial downloads kept; 74 the \
            cache could not be written (disk full, read-only, I/O error); 1 some message was \
            discarded; 3 every message ready, deferred or expired, but some on stale copies: an \
            asset's server could not be reached; 0 every message ready, deferred or expired. verify: 0 clean, 1 problems \
            found. simulate: 0 once the replay is complete. ready: 0 every message named is ready, \
            1 one is not, 2 one is not in the readiness index or there is no index. status, ls and \
            gc: 0. lease: COMMAND's status (128 + N when signal N ended it), 2 for an unknown \
            message or no readiness index, 75 when an asset is gone from the cache or another \
            process held a lease file exclusively past --wait, 127 when COMMAND is not found. \
            session-start: 0 the request is recorded or one is pending, 2 a refused request \
            directory, 77 the caller may not write there. Every subcommand exits 2 for a usage \
            error, 77 when it may not use the cache and 75 when a writer finds the cache locked. \
            Errors are one line on stderr, 'prefetch: error: ...', and at most one 'prefetch: \
            hint: ...' line.
            """,
        version: AssetCacheVersion.current,
        subcommands: [Run.self, Plan.self, Ready.self, Ls.self, Lease.self, Status.self, Verify.self, GC.self, Simulate.self, SessionStart.self],
        defaultSubcommand: Run.self
    )

    /// Every error in one format (``CommandFailure``), the parser's included;
    /// usage errors exit 2 like every other "nothing was changed" refusal
    /// (docs/cli.md), not with the argument parser's 64.
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let mistake = CommandName.mistake(in: arguments) {
            mistake.write()
            Glibc.exit(mistake.status)
        }
        do {
            let subcommands = Set(configuration.subcommands.compactMap { $0.configuration.commandName })
            let invocation = try Configuration.invocation(
                Array(CommandLine.arguments.dropFirst()), subcommands: subcommands, environment: ProcessInfo.processInfo.environment)
            var command = try parseAsRoot(invocation.arguments)
            if var run = command as? Run, run.manifest == nil {
                run.manifest = invocation.manifest
                command = run
            }
            try bootstrapLogging(for: command)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let failure as CommandFailure {
            failure.write()
            Glibc.exit(failure.status)
        } catch {
            // Help and --version (exit 0) print as the parser prints them; an
            // ExitCode was thrown after its message was written.
            if error is ExitCode || exitCode(for: error) == .success { exit(withError: error) }
            let failure = usageFailure(for: error, arguments: arguments)
            failure.write()
            Glibc.exit(failure.status)
        }
    }

    /// Before anything logs: the level comes from the subcommand's options.
    private static func bootstrapLogging(for command: ParsableCommand) throws {
        guard let common = (command as? any TakesCommonOptions)?.common else { return }
        do {
            try common.bootstrapLogging()
        } catch {
            throw error.report()
        }
    }
}
