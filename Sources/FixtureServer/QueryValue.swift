/// Reads the value of one known query parameter; a bad value is added to
/// `problems`, so that the request is answered with 400 naming it.
enum QueryValue {
    static func count(_ name: String, _ value: String, _ problems: inout [String]) -> Int? {
        guard let number = Int(value), number >= 0 else {
            problems.append("\(name) must be a non-negative integer, not '\(value)'")
            return nil
        }
        return number
    }

    static func statusCode(_ name: String, _ value: String, _ problems: inout [String]) -> Int? {
        // 1xx heads are not final responses, so they cannot stand in for one.
        guard let code = Int(value), (200...999).contains(code) else {
            problems.append("\(name) must be a status code from 200 to 999, not '\(value)'")
            return nil
        }
        return code
    }

    static func flag(_ name: String, _ value: String, _ problems: inout [String]) -> Bool {
        switch value {
        case "1", "true", "": return true
        case "0", "false": return false
        default:
            problems.append("\(name) must be 1 or 0, not '\(value)'")
            return false
        }
    }

    /// One of `choices`, by its query spelling.
    static func choice<T>(_ name: String, _ value: String, _ choices: [String: T], _ problems: inout [String]) -> T? {
        guard let chosen = choices[value] else {
            let spellings = choices.keys.sorted().joined(separator: ", ")
            problems.append("\(name) must be one of \(spellings), not '\(value)'")
            return nil
        }
        return chosen
    }
}
