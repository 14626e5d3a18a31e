extension StringProtocol {
    /// The text without the leading and trailing characters `isTrimmed` picks,
    /// whitespace and newlines by default: Foundation's `trimmingCharacters(in:)`
    /// without its ICU character sets.
    package func trimmed(while isTrimmed: (Character) -> Bool = \.isWhitespace) -> String {
        guard let first = firstIndex(where: { !isTrimmed($0) }), let last = lastIndex(where: { !isTrimmed($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
