/// The words a person writes for yes and no, in a configuration file or after
/// a flag that takes them (`delta`, `metered`, `require-integrity`): one list,
/// so that every boolean takes the same ones (docs/cli.md, "Configuration file").
enum YesNo {
    static let forms = "yes or no (true/false, on/off and 1/0 too)"

    static func value(of word: String) -> Bool? {
        switch word.lowercased() {
        case "yes", "true", "on", "1": true
        case "no", "false", "off", "0": false
        default: nil
        }
    }
}
