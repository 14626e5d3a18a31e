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
        version: AssetCacheVersion.current,
        subcommands: [Run.self, Plan.self, Ready.self, Ls.self, Lease.self, Status.self, Verify.self, GC.self, Simulate.self, SessionStart.self, Publish.self],
        defaultSubcommand: Run.self
    )

    /// Every error in one format (``CommandFailure``), the parser's included;
    /// usage errors exit 2 like every other "nothing was changed" refusal
    /// (docs/cli.md), not with the argument parser's 64.
    static func main() async {
        let arguments = negativeValuesJoined(Array(CommandLine.arguments.dropFirst()))
        if let mistake = CommandName.mistake(in: arguments) {
            mistake.write()
            Glibc.exit(mistake.status)
        }
        do {
            let subcommands = Set(configuration.subcommands.compactMap { $0.configuration.commandName })
            let invocation = try Configuration.invocation(
                arguments, subcommands: subcommands, environment: ProcessInfo.processInfo.environment)
            var command = try parseAsRoot(invocation.arguments)
            if var run = command as? Run, run.manifest == nil {
                // A bare `prefetch` with no manifest configured: someone finding
                // out what it does, not a run missing its argument.
                guard invocation.manifest != nil || !arguments.isEmpty else {
                    Console.standardError.writeLine(RootHelp.text)
                    Glibc.exit(ExitStatus.usage)
                }
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
            if exitCode(for: error) == .success, message(for: error) == helpMessage() {
                print(RootHelp.text)
                exit()
            }
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
