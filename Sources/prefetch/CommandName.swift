import AssetCache
#if canImport(Glibc)
import Glibc
#endif

/// The subcommands' names, and the nearest one to a mistyped name.
enum CommandName {
    /// As the parser knows them, `help` included.
    static var all: [String] {
        Prefetch.configuration.subcommands.map { $0.configuration.commandName ?? $0._commandName } + ["help"]
    }

    /// A mistyped command, caught before the parser reads it: `help stauts`
    /// (which the parser answers with the general help and exit 0) and
    /// `prefetch stauts` (which it reads as `run stauts`, a manifest path). A
    /// word that may be a manifest (a file of that name exists, or it has a
    /// `/` or `.` in it) or is like no command is left to `run`.
    static func mistake(in arguments: [String]) -> CommandFailure? {
        guard let first = arguments.first else { return nil }
        if first == "help" {
            guard let name = arguments.dropFirst().first(where: { !$0.hasPrefix("-") }), !all.contains(name) else { return nil }
            return unknown(name)
        }
        var info = stat()
        guard !first.hasPrefix("-"), !all.contains(first), !first.contains("/"), !first.contains("."),
              nearest(to: first) != nil, lstat(first, &info) != 0
        else { return nil }
        return unknown(first)
    }

    static func unknown(_ name: String) -> CommandFailure {
        let suggestion = nearest(to: name).map { "; did you mean '\($0)'?" } ?? ""
        return CommandFailure(
            message: "unknown command '\(name)'\(suggestion)", status: ExitStatus.usage,
            hint: "see 'prefetch --help' for the commands")
    }

    /// The command within a couple of typos of `name` (one for names of up to
    /// three letters), case aside; the first listed on a tie.
    static func nearest(to name: String) -> String? {
        let typed = Array(name.lowercased())
        var best: (name: String, distance: Int)?
        for candidate in all {
            let distance = Suggestion.editDistance(typed, Array(candidate))
            guard distance <= (candidate.count <= 3 ? 1 : 2), distance < best?.distance ?? .max else { continue }
            best = (candidate, distance)
        }
        return best?.name
    }
}
