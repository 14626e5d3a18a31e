import AssetCache
#if canImport(Glibc)
import Glibc
#endif

/// prefetch.conf and keys.d, read before the command line is parsed: the keys
/// become the flags the command line did not give, so the argument parser checks
/// and documents them one way (docs/cli.md, "Configuration file"). Precedence,
/// as git and curl users expect: a flag, then an environment variable
/// (PREFETCH_MANIFEST, PREFETCH_CACHE_DIR, PREFETCH_LOG_LEVEL), then the user's
/// file, then the system's.
enum Configuration {
    static let systemFile = "/etc/prefetch/prefetch.conf"

    /// Subcommands that read no file: `session-start` is a display app's kick,
    /// which must work whatever prefetch.conf says, and takes no key of it.
    static let unconfigured: Set<String> = ["session-start"]

    /// The subcommand that reads keys.d without using it: the check an
    /// operator runs after adding a key (README, "systemd"), so that a file
    /// there that is no key is found then, not when a signed manifest arrives.
    static let keysChecker = "status"

    /// The arguments for the parser, and run's manifest when the command line names none.
    struct Invocation {
        var arguments: [String]
        var manifest: String?
    }

    static func invocation(
        _ arguments: [String], subcommands: Set<String>, environment: [String: String]
    ) throws(CommandFailure) -> Invocation {
        let scan = CommandLineScan(arguments, subcommands: subcommands)
        guard !scan.readsNoConfiguration, !unconfigured.contains(scan.subcommand) else { return Invocation(arguments: arguments) }
        let files = self.files(scan: scan, environment: environment)
        var settings: [String: [ConfigEntry]] = [:]
        for file in files {
            guard let entries = try ConfigFile.read(file.path, absent: file.absent) else { continue }
            // A later file replaces what an earlier one said of a key, lists included.
            var own: [String: [ConfigEntry]] = [:]
            var lines: [(key: ConfigKey, entry: ConfigEntry)] = []
            for entry in entries {
                let key = try known(entry)
                own[key.name] = key.kind == .repeated ? (own[key.name] ?? []) + [entry] : [entry]
                lines.append((key, entry))
            }
            try ConfigValues.check(lines)
            settings.merge(own) { $1 }
        }
        var added: [String] = []
        var manifest = environment["PREFETCH_MANIFEST"].flatMap { $0.isEmpty ? nil : $0 }
        for key in ConfigKey.all where key.applies(to: scan.subcommand) && !scan.flags.contains(key.flagName) {
            guard let entries = settings[key.name] else { continue }
            if let variable = key.environment, environment[variable]?.isEmpty == false { continue }
            if key.name == "manifest" {
                manifest = key.value(of: entries[entries.count - 1])
            } else {
                added += try key.arguments(for: entries)
            }
        }
        let takesKeys = ConfigKey.named("trusted-key")!.applies(to: scan.subcommand) && !scan.flags.contains("trusted-key")
        if takesKeys || scan.subcommand == keysChecker {
            for file in files {
                let keys = try KeysDirectory.keyFiles(in: ConfigFile.resolve("keys.d", beside: file.path), absent: file.absent)
                if takesKeys { added += keys.flatMap { ["--trusted-key", $0] } }
            }
        }
        return Invocation(arguments: [scan.subcommand] + added + scan.rest, manifest: manifest)
    }

    /// The files to read, least precedence first, and the errors of lstat(2)
    /// that mean "no such file" for each: none for one named on purpose.
    static func files(scan: CommandLineScan, environment: [String: String]) -> [(path: String, absent: Set<Int32>)] {
        if let named = scan.configFile ?? environment["PREFETCH_CONFIG"].flatMap({ $0.isEmpty ? nil : $0 }) {
            // git's convention: /dev/null is an empty configuration.
            return named == "/dev/null" ? [] : [(named, Set<Int32>())]
        }
        return [(systemFile, [ENOENT, ENOTDIR]), (userDirectory(environment) + "/prefetch.conf", [ENOENT, ENOTDIR, EACCES])]
    }

    /// $XDG_CONFIG_HOME/prefetch, else ~/.config/prefetch.
    static func userDirectory(_ environment: [String: String]) -> String {
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") { return "\(xdg)/prefetch" }
        return "\(environment["HOME"] ?? "/nonexistent")/.config/prefetch"
    }

    /// The key `entry` names; else exit 2 naming the file and line.
    private static func known(_ entry: ConfigEntry) throws(CommandFailure) -> ConfigKey {
        guard let key = ConfigKey.named(entry.key) else {
            let suggestion = Suggestion.closest(to: entry.key, among: ConfigKey.all.map(\.name)).map { "; did you mean '\($0)'?" }
            throw CommandFailure(
                message: "\(entry.place): unknown key '\(entry.key)'\(suggestion ?? "; the keys are the long flags of docs/cli.md, 'Configuration file'")",
                status: ExitStatus.usage)
        }
        return key
    }
}
