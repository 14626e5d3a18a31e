/// Why a JSON text was refused, before a caller says which document it was
/// (a manifest names the line and column; an events file names its own line).
package struct JSONReadError: Error, Equatable {
    package enum Kind: Sendable {
        /// Not JSON at all: placed by line and column.
        case syntax
        /// JSON, but against a rule every reader here keeps (a key given twice,
        /// nesting too deep, a number no Double holds).
        case rule
        /// Valid JSON of the wrong shape for the document.
        case shape
    }

    package var kind: Kind
    package var what: String
    /// The JSON path of the value, as ``JSONPath`` spells it; nil until the reader places it.
    package var path: String?
    package var line: Int?
    package var column: Int?

    init(_ kind: Kind, _ what: String, path: String? = nil, line: Int? = nil, column: Int? = nil) {
        self.kind = kind
        self.what = what
        self.path = path
        self.line = line
        self.column = column
    }

    /// `what`, prefixed as a syntax error and followed by where it is in the text.
    package func message(line showLine: Bool) -> String {
        let text = kind == .syntax ? "not valid JSON: \(what)" : what
        guard let line, let column else { return text }
        return showLine ? "\(text) (line \(line), column \(column))" : "\(text) (column \(column))"
    }
}
