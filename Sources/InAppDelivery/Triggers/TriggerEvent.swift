/// The events that can fire a triggered action (docs/manifest.md, "Trigger conditions").
public enum TriggerEvent: Sendable, Equatable, CustomStringConvertible {
    case sessionStart
    case customEvent(name: String, properties: [String: EventProperty] = [:])
    case purchase(Purchase)
    /// nil when the push carried no campaign id; it still matches "any push".
    case pushClick(campaignID: String?)

    /// The event's name in event files and decision lines.
    public var kind: String {
        switch self {
        case .sessionStart: "session_start"
        case .customEvent: "custom_event"
        case .purchase: "purchase"
        case .pushClick: "push_click"
        }
    }

    /// Session start and push clicks make the user eligible for whatever is on the
    /// stack even when they fire nothing themselves (docs/delivery.md); other events only
    /// through the message they trigger.
    var offersStack: Bool {
        switch self {
        case .sessionStart, .pushClick: true
        case .customEvent, .purchase: false
        }
    }

    public var description: String {
        switch self {
        case .sessionStart: "session_start"
        case .customEvent(let name, _): "custom_event '\(name)'"
        case .purchase(let purchase): "purchase '\(purchase.productID)'"
        case .pushClick(let campaign): campaign.map { "push_click '\($0)'" } ?? "push_click"
        }
    }
}
