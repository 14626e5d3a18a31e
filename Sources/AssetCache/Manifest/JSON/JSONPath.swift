/// How errors name a value: `triggers[3].data.image_url`. A key that is not a
/// plain identifier is quoted as a JSON string in brackets (`x[0][""]`,
/// `integrity["https://cdn.test/a.png"]`), so that every path reads one way.
package enum JSONPath {
    package static func appending(key: String, to path: String) -> String {
        if isIdentifier(key) { return path.isEmpty ? key : "\(path).\(key)" }
        return "\(path)[\(quoted(key))]"
    }

    package static func appending(index: Int, to path: String) -> String {
        "\(path)[\(index)]"
    }

    static func isIdentifier(_ key: String) -> Bool {
        guard let first = key.utf8.first, !isDigit(first) else { return false }
        return key.utf8.allSatisfy { isDigit($0) || $0 == UInt8(ascii: "_") || ($0 | 0x20) &- UInt8(ascii: "a") < 26 }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    /// `key` as a JSON string literal.
    static func quoted(_ key: String) -> String {
        var result = "\""
        for scalar in key.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                result += "\\u00" + UInt8(scalar.value).twoHexDigits
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
