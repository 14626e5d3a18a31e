import ArgumentParser
import AssetCache

/// One `--header 'Name: value'`. Any text parses; `problem` then says what is
/// wrong, naming the header but never quoting its value (it may be a secret).
struct HeaderArgument: ExpressibleByArgument, Sendable {
    private let raw: String

    init(argument: String) {
        raw = argument
    }

    private var colon: String.Index? { raw.firstIndex(of: ":") }
    var name: String { colon.map { String(raw[..<$0]) } ?? "" }
    var value: String {
        guard let colon else { return "" }
        return String(raw[raw.index(after: colon)...].drop { $0 == " " || $0 == "\t" })
    }

    /// "Name: value", as libcurl sends it.
    var line: String { "\(name): \(value)" }

    var problem: String? {
        guard colon != nil else {
            return "a --header has no ':' after its name; write it as 'Name: value' (what was given is not shown: it may be a secret)"
        }
        // RFC 9110 §5.6.2 token characters.
        let punctuation = Set("!#$%&'*+-.^_`|~".unicodeScalars)
        guard !name.isEmpty, name.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || punctuation.contains($0)) }) else {
            return "a --header's name (before ':') is not a header name: use letters, digits and '-'"
        }
        // A CR, LF or NUL would end the line and smuggle in another header: the
        // rule every request header is held to before libcurl sees it.
        if HeaderRules.problem(with: line) != nil {
            return "--header '\(name)': its value holds a CR, LF or NUL, which would start another header line"
        }
        // libcurl reads "Name:" with nothing after it as "do not send Name".
        if value.isEmpty { return "--header '\(name)': its value is empty" }
        return nil
    }

    static var defaultCompletionKind: CompletionKind { .default }
}
