import ArgumentParser

extension Prefetch {
    /// An error of the argument parser (or a subcommand's `validate()`) in the
    /// format of every other error: `prefetch: error: …` and one hint, not its
    /// `Error: …` and usage block; exit 2, not its 64 (docs/cli.md).
    static func usageFailure(for error: Error, arguments: [String]) -> CommandFailure {
        let code = exitCode(for: error)
        guard code == .validationFailure else {
            // Anything else a subcommand threw: the parser's message, its code.
            return CommandFailure(message: sentence(message(for: error)), status: code.rawValue)
        }
        // `prefetch MANIFEST …` is `prefetch run MANIFEST …`.
        let command = arguments.first.flatMap { CommandName.all.contains($0) && $0 != "help" ? $0 : nil } ?? "run"
        return CommandFailure(message: sentence(message(for: error)), status: ExitStatus.usage, hint: "see 'prefetch \(command) --help'")
    }

    /// The parser's "Unknown option '--x'. Did you mean '--y'?" as one of ours:
    /// lower case, one line.
    private static func sentence(_ text: String) -> String {
        let lines = text.split(whereSeparator: \.isNewline)
            .map { $0.drop(while: \.isWhitespace) }.filter { !$0.isEmpty }
        var joined = lines.joined(separator: "; ").replacing(". Did you mean ", with: "; did you mean ")
        if let first = joined.first, first.isUppercase, joined.dropFirst().first?.isLowercase == true {
            joined = first.lowercased() + joined.dropFirst()
        }
        return joined.isEmpty ? "invalid command line" : joined
    }
}
