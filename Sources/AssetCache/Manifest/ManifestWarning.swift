/// What a manifest holds that loads but will not work as meant: a warning on
/// stderr (`prefetch: warning: <path>: <message>; did you mean '<suggestion>'?`)
/// and an entry of the report's `warnings` (docs/report.md). `--strict`
/// refuses a manifest with any mistake (every kind but `skipped_action`).
public struct ManifestWarning: Sendable, Hashable, CustomStringConvertible {
    /// The report's `kind`: stable strings, documented in docs/manifest.md.
    public enum Kind: String, Sendable, CaseIterable {
        /// An action of another type than `inapp` (a push): by design, not a mistake.
        case skippedAction = "skipped_action"
        /// A trigger condition whose `type` this device does not know: it never fires.
        case unknownTriggerType = "unknown_trigger_type"
        /// A key of `data` that the message's type does not take: ignored.
        case unknownKey = "unknown_key"
        /// A property filter, or a condition's filters together, that can never pass.
        case filterNeverPasses = "filter_never_passes"
        /// A condition the delivery engine refuses (an invalid regular expression,
        /// a value of the wrong type): `simulate` and InAppDelivery refuse the manifest.
        case invalidCondition = "invalid_condition"
    }

    public var kind: Kind
    /// The JSON path of what is wrong: `triggers[3].trigger_condition[0].type`.
    public var path: String
    public var message: String
    /// What was probably meant, when something close is known.
    public var suggestion: String?

    public init(_ kind: Kind, path: String, _ message: String, suggestion: String? = nil) {
        self.kind = kind
        self.path = path
        self.message = message
        self.suggestion = suggestion
    }

    /// Whether `--strict` refuses it: a skipped push is the server's business,
    /// everything else is a message that will not show or fire as written.
    public var isMistake: Bool { kind != .skippedAction }

    /// By the action each is in (`triggers[N]`), the order of each action's
    /// kept: warnings found by two readers of the manifest, read as one list.
    public static func inManifestOrder(_ warnings: [ManifestWarning]) -> [ManifestWarning] {
        warnings.enumerated()
            .sorted { ($0.element.action, $0.offset) < ($1.element.action, $1.offset) }
            .map(\.element)
    }

    /// N of a path that starts `triggers[N]`; every warning's does.
    private var action: Int {
        guard path.hasPrefix("triggers["), let end = path.firstIndex(of: "]") else { return Int.max }
        return Int(path[path.index(path.startIndex, offsetBy: 9)..<end]) ?? Int.max
    }

    public var description: String {
        "\(path): \(message)" + (suggestion.map { "; did you mean '\($0)'?" } ?? "")
    }
}
