/// A `property_value` regular expression, compiled once with the manifest:
/// case-insensitive and unanchored, as the servers' regexes are written, so that
/// `sale` matches "Summer SALE". Swift's own `Regex` (no ICU behind it) reads the
/// same syntax campaigns use: alternation, classes, anchors, quantifiers.
struct FilterPattern: @unchecked Sendable {
    // @unchecked: Regex is an immutable value whose lazily lowered program is
    // published with an atomic compare-and-swap, so sharing one between the
    // engine's tasks is safe; the standard library has not marked it Sendable.
    private let regex: Regex<AnyRegexOutput>

    /// Throws for a pattern that does not compile.
    init(_ pattern: String) throws {
        regex = try Regex(pattern).ignoresCase()
    }

    func matches(_ text: String) -> Bool {
        // A match that the engine cannot finish (it has no such case today) counts as no match.
        (try? regex.firstMatch(in: text)) != nil
    }
}
