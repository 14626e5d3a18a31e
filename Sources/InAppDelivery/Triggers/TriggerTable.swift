import AssetCache

/// A manifest's actions with their trigger conditions compiled. Building one is
/// the validation step the CLI runs before anything else: an invalid regex or a
/// wrongly typed filter is a manifest error naming its JSON path, not a filter
/// that silently never passes.
public struct TriggerTable: Sendable {
    struct Entry: Sendable {
        var action: TriggeredAction
        var conditions: [ConditionMatcher]
    }

    let entries: [Entry]
    /// What loads but can never fire or pass: unknown trigger types, location and
    /// unknown comparators, filters that contradict each other; in manifest order.
    public let warnings: [ManifestWarning]

    public init(_ manifest: Manifest) throws(ManifestError) {
        var parser = ConditionParser()
        var entries: [Entry] = []
        for action in manifest.actions {
            var conditions: [ConditionMatcher] = []
            for (index, condition) in action.conditions.enumerated() {
                conditions.append(try parser.condition(condition, path: Self.path(action, index)))
            }
            entries.append(Entry(action: action, conditions: conditions))
        }
        self.entries = entries
        warnings = parser.warnings
    }

    /// What `run` and `plan`, which fire nothing, say of a manifest's
    /// conditions: the warnings of ``init(_:)``, and each condition it would
    /// refuse (`invalid_condition`) as one more, so that every one is named at
    /// once rather than the first alone.
    public static func warnings(for manifest: Manifest) -> [ManifestWarning] {
        var parser = ConditionParser()
        for action in manifest.actions {
            for (index, condition) in action.conditions.enumerated() {
                do {
                    _ = try parser.condition(condition, path: path(action, index))
                } catch {
                    parser.warnings.append(ManifestWarning(
                        .invalidCondition, path: error.path,
                        "\(error.message); simulate and the InAppDelivery engine refuse the manifest for it"))
                }
            }
        }
        return parser.warnings
    }

    private static func path(_ action: TriggeredAction, _ index: Int) -> String {
        "triggers[\(action.manifestIndex)].trigger_condition[\(index)]"
    }

    public var actions: [TriggeredAction] { entries.map(\.action) }

    /// The actions this event fires at `now`, in manifest order (the order that
    /// breaks priority ties): a condition matches and the action is within its
    /// `start_time`/`end_time`.
    func matching(_ event: TriggerEvent, at now: Double) -> [TriggeredAction] {
        entries.compactMap { entry in
            guard entry.action.isLive(at: now), entry.conditions.contains(where: { $0.matches(event, now: now) }) else { return nil }
            return entry.action
        }
    }
}

extension TriggeredAction {
    /// Both bounds are inclusive: an action starting at 100 may fire at 100.
    func isLive(at now: Double) -> Bool {
        if let startTime, now < startTime { return false }
        return !isExpired(at: now)
    }
}
