import ArgumentParser

/// `prefetch --help`: the parser's overview, usage and command list first (what
/// a new user looks for), then the exit codes, which the parser has no place
/// for after the list. The man page has them in EXIT STATUS (make man).
enum RootHelp {
    static let exitCodes = """
        run and plan, the first that applies: 2 usage error, invalid manifest or \
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
        directory, 77 the caller may not write there. publish: 0 every message would be \
        ready on a device (or --allow-discards) and the manifest is written, 1 some message \
        would not be and nothing is written, 69 --previous or the --check URL could not be \
        fetched, 74 a file could not be written; publish --check: 0 every message ready, 1 \
        some not. Every subcommand exits 2 for a usage \
        error, 77 when it may not use the cache and 75 when a writer finds the cache locked. \
        Errors are one line on stderr, 'prefetch: error: ...', and at most one 'prefetch: \
        hint: ...' line.
        """

    static var text: String {
        Prefetch.helpMessage() + "\n\nEXIT CODES:\n" + wrapped(exitCodes, indent: "  ", width: 80)
    }

    /// Words filled into lines of at most `width` columns, as the parser fills its own.
    static func wrapped(_ text: String, indent: String, width: Int) -> String {
        var lines: [String] = []
        var line = indent
        for word in text.split(separator: " ") {
            if line.count > indent.count, line.count + 1 + word.count > width {
                lines.append(line)
                line = indent
            }
            line += (line.count > indent.count ? " " : "") + word
        }
        lines.append(line)
        return lines.joined(separator: "\n")
    }
}
