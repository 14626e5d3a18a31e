import AssetCache
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads a JSON Lines events file (docs/delivery.md). Blank lines are skipped; every
/// other line must be a whole event, in time order, or the file is refused
/// naming the line: a replay of half a file would answer a question nobody asked.
public enum EventFile {
    public static func parse(_ text: String) throws(EventFileError) -> [TimedEvent] {
        var events: [TimedEvent] = []
        // Split on the byte: "\r\n" is one Character, so splitting the String on
        // "\n" would leave a file with Windows line ends as one line.
        for (index, bytes) in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            let line = String(decoding: bytes, as: UTF8.self)
            guard !line.allSatisfy(\.isWhitespace) else { continue }
            let event = try parse(line: line, number: number)
            if let previous = events.last, event.at < previous.at {
                throw EventFileError(line: number, "\"at\" \(Seconds.format(event.at)) is before the previous event's \(Seconds.format(previous.at))")
            }
            events.append(event)
        }
        return events
    }

    static func parse(line: String, number: Int) throws(EventFileError) -> TimedEvent {
        let json: JSONValue
        do {
            json = try JSONDecoder().decode(JSONValue.self, from: Data(line.utf8))
        } catch {
            throw EventFileError(line: number, "not valid JSON")
        }
        guard case .object(let object) = json else { throw EventFileError(line: number, "expected a JSON object") }
        let fields = EventFields(object: object, line: number)
        guard case .number(let at)? = object["at"], at.isFinite, at >= 0 else {
            throw EventFileError(line: number, "\"at\" must be a number of seconds, 0 or more")
        }
        let name = try fields.string("event")
        let event: SimulationEvent
        switch name {
        case "session_start":
            event = .trigger(.sessionStart)
        case "custom_event":
            event = .trigger(.customEvent(name: try fields.string("name"), properties: try fields.properties()))
        case "purchase":
            let purchase = Purchase(
                productID: try fields.string("product_id"),
                price: try fields.optionalNumber("price") ?? 0,
                currency: try fields.optionalString("currency") ?? "USD",
                quantity: try fields.optionalInteger("quantity") ?? 1,
                properties: try fields.properties())
            event = .trigger(.purchase(purchase))
        case "push_click":
            event = .trigger(.pushClick(campaignID: try fields.optionalString("campaign_id")))
        case "dismiss": event = .dismiss
        case "background": event = .background
        case "foreground": event = .foreground
        case "display_next": event = .displayNext
        case "orientation":
            let value = try fields.string("value")
            guard let orientation = DeviceOrientation(name: value) else {
                throw EventFileError(line: number, "\"value\" must be PORTRAIT or LANDSCAPE, not '\(value)'")
            }
            event = .orientation(orientation)
        default:
            throw EventFileError(line: number, "unknown event '\(name)'")
        }
        return TimedEvent(at: at, event: event, line: number)
    }
}
