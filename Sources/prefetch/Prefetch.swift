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
            events file, or refused cache directory (nothing was changed); 75 another writer holds \
            the cache's lock; 69 the manifest URL could not be fetched (nothing was changed); 130 or \
            143 SIGINT or SIGTERM stopped the run cleanly, partial downloads kept; 74 the cache \
            could not be written; 1 some message was discarded; 0 every message ready, deferred or \
            expired. verify: 0 clean, 1 problems found. simulate: 0 once the replay is complete. \
            ready: 0 every message named is ready, 1 one is not, 2 one is not in the readiness index \
            or there is no index. status, ls and gc: 0. Every subcommand exits 2 for a usage error and 75 when a writer \
            finds the cache locked.
            """,
        version: AssetCacheVersion.current,
        subcommands: [Run.self, Plan.self, Ready.self, Ls.self, Status.self, Verify.self, GC.self, Simulate.self],
        defaultSubcommand: Run.self
    )

    /// Usage errors exit 2 like every other "nothing was changed" refusal (docs/cli.md),
    /// not with the argument parser's 64.
    static func main() async {
        do {
            var command = try parseAsRoot()
            try bootstrapLogging(for: command)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            if exitCode(for: error) == .validationFailure {
                Console.standardError.writeLine(fullMessage(for: error))
                Glibc.exit(ExitStatus.usage)
            }
            exit(withError: error)
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

/// The exit codes of docs/cli.md.
enum ExitStatus {
    static let ok: Int32 = 0
    static let someDiscarded: Int32 = 1
    static let usage: Int32 = 2
    static let manifestUnavailable: Int32 = 69
    static let storage: Int32 = 74
    static let locked: Int32 = 75
}

/// A refusal with a message for stderr and the exit code that goes with it.
struct CommandFailure: Error {
    var message: String
    var status: Int32

    func report() -> ExitCode {
        write()
        return ExitCode(status)
    }

    /// `prefetch: error: …` on stderr, "error" in red on a terminal. The message
    /// may quote a manifest, a server or the cache: it is escaped.
    func write() {
        let style = TextStyle.forDescriptor(STDERR_FILENO)
        // The run is over: its progress line must not be drawn again below the error.
        Console.standardError.clearStatus()
        Console.standardError.writeLine("prefetch: \(style.red("error")): \(TerminalText.safe(message))")
    }
}
