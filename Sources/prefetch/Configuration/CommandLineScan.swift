/// What the configuration needs to know of a command line before the argument
/// parser reads it: the subcommand, the long flags given (a flag given wins over
/// the file, so the file's is not added), and `--config`/`--no-config`.
struct CommandLineScan {
    /// `run` when the command line names none (it is the default subcommand).
    var subcommand = "run"
    var namesSubcommand = false
    var flags: Set<String> = []
    var configFile: String?
    /// Help, the version, completion scripts: answered without any file.
    var readsNoConfiguration = false
    /// The arguments after the subcommand's name.
    var rest: [String]

    init(_ arguments: [String], subcommands: Set<String>) {
        rest = arguments
        if let first = arguments.first, subcommands.contains(first) || first == "help" {
            subcommand = first
            namesSubcommand = true
            rest.removeFirst()
            if first == "help" { readsNoConfiguration = true }
        }
        var index = rest.startIndex
        while index < rest.endIndex {
            let token = rest[index]
            index += 1
            if token == "--" { break }
            if token == "-h" { readsNoConfiguration = true }
            guard token.hasPrefix("--") else { continue }
            let name = String(token.dropFirst(2).prefix { $0 != "=" })
            flags.insert(name)
            switch name {
            // "-completion": a shell's completion script asking for candidates (---completion).
            case "help", "version", "generate-completion-script", "experimental-dump-help", "-completion":
                readsNoConfiguration = true
            case "no-config":
                readsNoConfiguration = true
            case "config":
                if let equals = token.firstIndex(of: "=") {
                    configFile = String(token[token.index(after: equals)...])
                } else if index < rest.endIndex {
                    configFile = rest[index]
                    index += 1
                }
            default:
                break
            }
        }
    }
}
