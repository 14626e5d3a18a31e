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

/// `prefetch lease MESSAGE_ID -- COMMAND`: the display lease of each of a
/// message's assets (docs/cache-format.md#leases-keeping-what-is-shown), held
/// while COMMAND runs.
struct Lease: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lease",
        abstract: "Hold the leases of a message's assets while COMMAND runs, so that no writer removes them.",
        discussion: """
            Reads the message's lease files from the cache's readiness.json, takes a shared flock on \
            each, then runs COMMAND with them open: no eviction, gc, scrub or verify --repair removes \
            those objects and trees until COMMAND and prefetch have both exited. SIGINT and SIGTERM \
            are passed on to COMMAND. A lease file that another process holds exclusively (a writer \
            removing that asset) is waited for, up to --wait seconds in all. Exits with COMMAND's \
            status (128 + N when signal N ended it); 2 for an unknown message or no index; 75 when \
            an asset is no longer in the cache (run again, or read readiness.json again) or a lease \
            file was still held exclusively after --wait (try again); 127 when COMMAND cannot be run.
            """)

    @OptionGroup var common: CommonOptions

    @Option(help: ArgumentHelp(
        "Wait up to this many seconds in all for lease files that another process holds exclusively, then exit 75 without running COMMAND.",
        valueName: "seconds"))
    var wait = Seconds(10)

    @Argument(help: "The message whose assets to lease, by its id in readiness.json.")
    var messageID: String

    @Argument(parsing: .postTerminator, help: ArgumentHelp("The program to run while the leases are held, and its arguments (after --).", valueName: "command"))
    var command: [String] = []

    func validate() throws {
        guard !command.isEmpty else {
            throw ValidationError("give the command to run after --: prefetch lease MESSAGE_ID -- COMMAND [ARGUMENT...]")
        }
    }

    func run() throws {
        let leases: [Int32]
        do throws(CommandFailure) {
            guard let store = try common.openReader() else {
                throw CommandFailure(
                    message: "no readiness index in \(common.cacheDirectory): there is no cache there yet (a run makes it)",
                    status: ExitStatus.usage)
            }
            leases = try LeasedMessage.take(messageID, in: store, wait: wait.value)
        } catch {
            throw error.report()
        }
        throw ExitCode(LeaseChild.run(command, keeping: leases))
    }
}
