import Foundation

/// What `status`, `verify` and `gc` print with `--json`: one object on stdout,
/// indented, keys sorted, "/" left alone (paths are most of what they hold).
enum JSONOutput {
    static func write(_ value: some Encodable) throws(CommandFailure) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            FileHandle.standardOutput.write(try encoder.encode(value) + Data("\n".utf8))
        } catch {
            throw CommandFailure(message: "cannot write the JSON output: \(error)", status: ExitStatus.storage)
        }
    }
}
