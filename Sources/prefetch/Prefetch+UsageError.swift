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
        return CommandFailure(
            message: withForms(sentence(message(for: error))), status: ExitStatus.usage, hint: "see 'prefetch \(command) --help'")
    }

    /// "the value '10 XB' is invalid for '--budget <size>'" and what the flag
    /// takes, as a configuration file's error says it of its key.
    private static func withForms(_ sentence: String) -> String {
        guard sentence.hasPrefix("the value "), let start = sentence.firstRange(of: "invalid for '--")?.upperBound else { return sentence }
        let flag = sentence[start...].prefix { $0.isLetter || $0 == "-" }
        guard let forms = ConfigKey.all.first(where: { $0.flagName == flag })?.forms,
              let quote = sentence[start...].firstIndex(of: "'") else { return sentence }
        // The forms stand for the parser's list of choices, where it gave one.
        return "\(sentence[...quote]); --\(flag) takes \(forms)"
    }

    /// `--max-run-time -1` as `--max-run-time=-1`: the parser reads a word
    /// starting with '-' as an option, and would say the value is missing; this
    /// way it is the value, refused saying why. Not past `--` (lease's COMMAND).
    static func negativeValuesJoined(_ arguments: [String]) -> [String] {
        var joined: [String] = []
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let word = arguments[index]
            if word == "--" { return joined + arguments[index...] }
            if word.hasPrefix("--"), !word.contains("="), index + 1 < arguments.endIndex,
               let next = arguments[index + 1].dropFirst().first, arguments[index + 1].hasPrefix("-"), next.isNumber || next == "." {
                joined.append("\(word)=\(arguments[index + 1])")
                index += 2
                continue
            }
            joined.append(word)
            index += 1
        }
        return joined
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
