import AssetCache

/// The "did you mean" of an unknown trigger condition type. Edit distance
/// finds typos (`purchse`, `Push-Click`); the names other SDKs and a first
/// guess give a session start or a push click (`session_start`, `app_open`,
/// `notification_click`) are nowhere near `open` by it, so they are listed.
enum TriggerTypeSuggestion {
    /// The types ConditionParser knows (docs/manifest.md, "Trigger conditions").
    static let known = ["open", "purchase", "purchase_property", "custom_event", "custom_event_property", "push_click"]

    private static let synonyms: [String: String] = [
        "session_start": "open", "sessionstart": "open", "session": "open", "start": "open",
        "app_open": "open", "app_opened": "open", "app_launch": "open", "app_start": "open", "app_foreground": "open",
        "launch": "open", "foreground": "open", "first_open": "open", "on_open": "open", "opened": "open",
        "push": "push_click", "push_open": "push_click", "push_opened": "push_click",
        "notification_click": "push_click", "notification_open": "push_click", "notification_opened": "push_click",
        "event": "custom_event", "custom": "custom_event", "in_app_purchase": "purchase", "iap": "purchase",
    ]

    static func suggestion(for type: String) -> String? {
        let word = type.lowercased().replacing("-", with: "_").replacing(" ", with: "_")
        return synonyms[word] ?? Suggestion.closest(to: word, among: known)
    }
}
