import AssetCache
import Foundation
@testable import InAppDelivery

/// An engine over a manifest built in code, with a fake presenter, a driven
/// clock and every decision logged. Times in tests are seconds after `start`.
final class Harness {
    static let start = 1_767_225_600.0  // 2026-01-01T00:00:00Z
    static let image = "http://cdn.test/img.png"
    static let imageURL = try! AssetURL(parsing: image)

    let clock = ManualClock(now: Harness.start)
    let presenter = FakePresenter()
    let readiness: SwitchableReadiness
    let log = DecisionLog()
    let engine: DeliveryEngine

    init(
        _ actions: [[String: Any]], interval: Double = 30, orientation: DeviceOrientation = .portrait,
        states: [AssetURL: AssetState] = [Harness.imageURL: .available(path: "/cache/img")]
    ) throws {
        readiness = SwitchableReadiness(states)
        engine = try DeliveryEngine(
            manifest: try manifest(actions), readiness: readiness, presenter: presenter, clock: clock,
            configuration: DeliveryConfiguration(minimumTriggerInterval: interval, orientation: orientation))
        engine.delegate = log
    }

    /// Moves the clock to `seconds` after the start.
    func at(_ seconds: Double) {
        clock.now = Harness.start + seconds
    }

    func custom(_ name: String, _ properties: [String: EventProperty] = [:], at seconds: Double? = nil) {
        if let seconds { at(seconds) }
        engine.handle(.customEvent(name: name, properties: properties))
    }

    /// Decisions as compact lines: "10 rate_limited b minimum_interval".
    var lines: [String] {
        log.decisions.map { decision in
            var parts = [Seconds.format(decision.at - Harness.start), decision.action.rawValue]
            parts.append(decision.trigger ?? decision.event?.kind ?? "-")
            if let reason = decision.reason { parts.append(reason.description) }
            return parts.joined(separator: " ")
        }
    }
}

func manifest(_ actions: [[String: Any]]) throws -> Manifest {
    try Manifest.decode(try JSONSerialization.data(withJSONObject: ["triggers": actions]))
}

/// An inapp action fired by a custom event of the same name, unless told otherwise.
func action(
    _ id: String, priority: Double = 0, on conditions: [[String: Any]]? = nil,
    message: [String: Any] = ["type": "SLIDEUP"], _ extra: [String: Any] = [:]
) -> [String: Any] {
    var action: [String: Any] = [
        "id": id, "type": "inapp", "priority": priority,
        "trigger_condition": conditions ?? [["type": "custom_event", "data": ["event_name": id]]],
        "data": message,
    ]
    action.merge(extra) { $1 }
    return action
}

func customEvent(_ name: String, filters: String? = nil) -> [String: Any] {
    var data: [String: Any] = ["event_name": name]
    if let filters { data["property_filters"] = try! JSONSerialization.jsonObject(with: Data(filters.utf8)) }
    return ["type": filters == nil ? "custom_event" : "custom_event_property", "data": data]
}
