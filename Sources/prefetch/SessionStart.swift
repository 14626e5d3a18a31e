import ArgumentParser
import AssetCache
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `prefetch session-start`: a display app, which runs as another user than the
/// cache's owner and so may not run `prefetch run`, asks for a run now. It
/// records a request where systemd's prefetch-session.path sees it; the
/// service's ExecStartPre (`--consume`) takes the requests before each run.
/// It reads no configuration file: a kick must work whatever prefetch.conf
/// says, and the path unit, which reads none either, fixes the directory.
struct SessionStart: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "session-start",
        abstract: "Ask for a run now, as a session starts: for apps in the cache's group, which may not run one.",
        discussion: """
            Records a request (an empty file named 'request', whose contents are never read) in the \
            request directory, which prefetch-session.path watches: it starts prefetch.service, whose \
            run first takes every request present, with --consume. Requests made while a run goes on \
            stay, and start one more run after it. Exit 0 when the request is recorded or one is \
            already pending (--consume: once the requests present are taken); 2 when the request \
            directory is missing, not a directory, a symbolic link or writable by everyone; 77 when the \
            caller may not write there (the hint names the group to join); 74 when it cannot be written.
            """)

    @Option(help: ArgumentHelp(
        "The directory prefetch-session.path watches.",
        discussion: "Default: $PREFETCH_REQUEST_DIR, else /run/prefetch/session-start.",
        valueName: "dir"))
    var requestDir: String?

    @Flag(help: "Take the requests present instead of recording one: what prefetch.service runs before each run.")
    var consume = false

    @Flag(help: "Print nothing on success, errors only.")
    var quiet = false

    func run() throws {
        let dir = requestDir ?? SessionStartRequests.directory(environment: ProcessInfo.processInfo.environment)
        do throws(CommandFailure) {
            if consume {
                try take(from: dir)
            } else {
                try record(in: dir)
            }
        } catch {
            throw error.report()
        }
    }

    private func record(in dir: String) throws(CommandFailure) {
        let recorded: SessionStartRequests.Recorded
        do {
            recorded = try SessionStartRequests.record(in: dir)
        } catch {
            throw Self.commandFailure(error, dir: dir)
        }
        let request = TerminalText.safe(dir + "/" + SessionStartRequests.requestName)
        say(recorded == .recorded ? "session start recorded: \(request)" : "session start already pending: \(request)")
    }

    private func take(from dir: String) throws(CommandFailure) {
        let taken: SessionStartRequests.Taken?
        do {
            taken = try SessionStartRequests.take(in: dir)
        } catch {
            throw Self.commandFailure(error, dir: dir)
        }
        let shown = TerminalText.safe(dir)
        guard let taken else { return say("no request directory \(shown): nothing to take") }
        if !quiet {
            for leftover in taken.leftovers {
                Console.standardError.writeLine("prefetch: warning: " + TerminalText.safe(
                    "\(leftover); what a member of the group left there no longer counts as a request, but only its owner or root can remove it"))
            }
        }
        switch taken.requests {
        case 0: say("no session-start request in \(shown)")
        case 1: say("took 1 session-start request from \(shown)")
        default: say("took \(taken.requests) session-start requests from \(shown)")
        }
    }

    private func say(_ line: String) {
        if !quiet { print(line) }
    }

    private static func commandFailure(_ error: SessionStartRequests.Failure, dir: String) -> CommandFailure {
        switch error.kind {
        case .refused: CommandFailure(message: error.description, status: ExitStatus.usage)
        case .denied: CommandFailure(message: error.description, status: ExitStatus.noPermission, hint: RequestDirectoryGroup.hint(for: dir))
        case .storage: CommandFailure(message: error.description, status: ExitStatus.storage)
        }
    }
}
