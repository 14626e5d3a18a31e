import ArgumentParser

/// Every value of a configuration file, checked by the argument parser as its
/// flag's would be, by every command (a mistake is found the first time
/// anything runs, not when the one command that uses it does). One parse for
/// all of a file's values; only when it fails, one a line, to name the line.
enum ConfigValues {
    static func check(_ lines: [(key: ConfigKey, entry: ConfigEntry)]) throws(CommandFailure) {
        let parsed = lines.filter(\.key.isParsed)
        // run takes every key but those of every command, which status takes.
        try check(parsed.filter { $0.key.commands != nil }, with: Run.self)
        try check(parsed.filter { $0.key.commands == nil }, with: Status.self)
    }

    private static func check<Command: ParsableCommand>(
        _ lines: [(key: ConfigKey, entry: ConfigEntry)], with command: Command.Type
    ) throws(CommandFailure) {
        guard !lines.isEmpty else { return }
        var all: [String]? = []
        for line in lines {
            guard let arguments = try? line.key.arguments(for: [line.entry]) else { all = nil; break }
            all? += arguments
        }
        if let all, (try? command.parse(all)) != nil { return }
        for line in lines {
            do {
                _ = try command.parse(try line.key.arguments(for: [line.entry]))
            } catch let failure as CommandFailure {
                throw failure
            } catch {
                throw CommandFailure(message: "\(line.entry.place): \(sentence(command.message(for: error), of: line))", status: ExitStatus.usage)
            }
        }
    }

    /// What is wrong with a line in the file's words: its key, not the flag
    /// the key became (`--delta-config` is no name a user ever wrote), and the
    /// values the key takes.
    private static func sentence(_ message: String, of line: (key: ConfigKey, entry: ConfigEntry)) -> String {
        let key = line.key
        if message.hasPrefix("The value ") {
            if let forms = key.forms { return "'\(key.name)' takes \(forms), not '\(line.entry.value)'" }
            return "'\(key.name)': \(oneLine(message))"
        }
        let text = oneLine(message).replacing("--\(key.flagName)", with: "'\(key.name)'")
        return text.contains("'\(key.name)'") ? text : "'\(key.name)': \(text)"
    }

    /// The parser's message on one line: "… one of the following: trace, debug, …".
    private static func oneLine(_ message: String) -> String {
        let lines = message.split(separator: "\n").map { $0.drop { $0 == " " } }.filter { !$0.isEmpty }
        guard let first = lines.first else { return message }
        let choices = lines.dropFirst().map { $0.hasPrefix("- ") ? $0.dropFirst(2) : $0 }
        return choices.isEmpty ? String(first) : "\(first) \(choices.joined(separator: ", "))"
    }
}
