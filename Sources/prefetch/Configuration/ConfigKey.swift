/// A key of prefetch.conf. Each is named like the long flag it stands for and
/// goes to the subcommands that take that flag, so a command line can always
/// say the same thing, and win (docs/cli.md, "Configuration file").
struct ConfigKey: Sendable {
    enum Kind: Sendable {
        /// One value; the last line that gives it wins.
        case single
        /// A repeatable flag: every line adds one.
        case repeated
        /// A flag without a value, given when the line says true.
        case toggle
    }

    var name: String
    /// The subcommands that take the flag; nil for every one (CommonOptions).
    var commands: Set<String>?
    var kind = Kind.single
    /// A file or directory: relative to the configuration file's own directory.
    var isPath = false
    /// The variable that says the same as the key and wins over the file.
    var environment: String?
    /// Whether the argument parser has more to say of a value than that it is
    /// there: not of a manifest or a channel's name (and `--audience` alone,
    /// without the keys that come later, would be refused).
    var isParsed = true
    /// The long flag the key gives, when not its own name.
    var flag: String?
    var flagName: String { flag ?? name }

    /// Every key the file may hold. `manifest` is run's argument, not a flag.
    static let all: [ConfigKey] = [
        ConfigKey(name: "manifest", commands: ["run"], environment: "PREFETCH_MANIFEST", isParsed: false),
        ConfigKey(name: "cache-dir", commands: nil, isPath: true, environment: "PREFETCH_CACHE_DIR"),
        ConfigKey(name: "log-level", commands: nil, environment: "PREFETCH_LOG_LEVEL"),
        ConfigKey(name: "trusted-key", commands: ["run", "plan"], kind: .repeated, isPath: true),
        ConfigKey(name: "audience", commands: ["run", "plan"], kind: .repeated, isParsed: false),
        ConfigKey(name: "require-integrity", commands: ["run", "plan"], kind: .toggle),
        ConfigKey(name: "strict", commands: ["run", "plan"], kind: .toggle),
        ConfigKey(name: "header", commands: ["run"], kind: .repeated),
        ConfigKey(name: "cacert", commands: ["run"], isPath: true),
        ConfigKey(name: "budget", commands: ["run"]),
        ConfigKey(name: "max-run-time", commands: ["run"]),
        ConfigKey(name: "wait", commands: ["run", "gc", "verify"]),
        ConfigKey(name: "concurrency", commands: ["run"]),
        ConfigKey(name: "per-host", commands: ["run"]),
        ConfigKey(name: "max-asset-size", commands: ["run"]),
        ConfigKey(name: "max-unpacked-size", commands: ["run"]),
        ConfigKey(name: "retries", commands: ["run"]),
        ConfigKey(name: "link-wait", commands: ["run"]),
        ConfigKey(name: "connect-timeout", commands: ["run"]),
        ConfigKey(name: "stall-timeout", commands: ["run"]),
        ConfigKey(name: "max-time", commands: ["run"]),
        ConfigKey(name: "max-redirs", commands: ["run"]),
        ConfigKey(name: "limit-rate", commands: ["run"]),
        ConfigKey(name: "head-start", commands: ["run"]),
        ConfigKey(name: "scrub-bytes", commands: ["run"]),
        ConfigKey(name: "scrub-percent", commands: ["run"]),
        ConfigKey(name: "metrics-file", commands: ["run"], isPath: true),
        ConfigKey(name: "max-download-bytes", commands: ["run"]),
        // status shows the floor a run keeps.
        ConfigKey(name: "min-free", commands: ["run", "status"]),
        // What --metered auto falls back to, not --metered itself: where
        // NetworkManager runs, its answer wins over the file's.
        ConfigKey(name: "metered", commands: ["run"], flag: "metered-config"),
        ConfigKey(name: "metered-max-asset-bytes", commands: ["run"]),
        ConfigKey(name: "jitter", commands: ["run"]),
        // `delta = no` as --no-delta says it; a flag cannot take the file's yes|no.
        ConfigKey(name: "delta", commands: ["run"], flag: "delta-config"),
    ]

    /// The values the key takes, as an error about one says them; nil where
    /// the argument parser's own message lists them (a level's names).
    var forms: String? {
        switch name {
        case "budget", "max-asset-size", "max-unpacked-size", "limit-rate", "scrub-bytes", "max-download-bytes", "metered-max-asset-bytes":
            ByteSize.forms
        case "max-run-time", "wait", "link-wait", "connect-timeout", "stall-timeout", "max-time", "head-start", "jitter":
            Seconds.forms
        case "min-free": MinFreeArgument.forms
        case "concurrency", "per-host": "a whole number from 1 to 256"
        case "retries": "a whole number from 0 to 100"
        case "scrub-percent": "a whole number from 0 to 100"
        case "max-redirs": "a whole number from 0 to 1000"
        case "require-integrity", "strict", "delta": YesNo.forms
        case "metered": "auto, or \(YesNo.forms)"
        case "log-level": "one of trace, debug, info, notice, warning, error or critical"
        default: nil
        }
    }

    func applies(to subcommand: String) -> Bool { commands?.contains(subcommand) ?? true }

    static func named(_ name: String) -> ConfigKey? { all.first { $0.name == name } }

    /// The value as the command line would carry it: paths resolved against the
    /// file's directory (`@FILE` of a header too), so the file can move with them.
    func value(of entry: ConfigEntry) -> String {
        if name == "header", entry.value.hasPrefix("@") {
            return "@" + ConfigFile.resolve(String(entry.value.dropFirst()), beside: entry.file)
        }
        if name == "manifest", entry.value != "-", !entry.value.contains("://") {
            return ConfigFile.resolve(entry.value, beside: entry.file)
        }
        return isPath ? ConfigFile.resolve(entry.value, beside: entry.file) : entry.value
    }

    /// The flags that say what `entries` (this key's lines) say.
    func arguments(for entries: [ConfigEntry]) throws(CommandFailure) -> [String] {
        var arguments: [String] = []
        for entry in entries {
            if kind == .toggle {
                if try Self.truth(of: entry) { arguments.append("--\(flagName)") }
            } else {
                arguments += ["--\(flagName)", value(of: entry)]
            }
        }
        return arguments
    }

    private static func truth(of entry: ConfigEntry) throws(CommandFailure) -> Bool {
        guard let value = YesNo.value(of: entry.value) else {
            throw CommandFailure(
                message: "\(entry.place): '\(entry.key)' is \(YesNo.forms), not '\(entry.value)'", status: ExitStatus.usage)
        }
        return value
    }
}
