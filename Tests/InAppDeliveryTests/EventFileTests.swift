import AssetCache
import Testing
@testable import InAppDelivery

/// The events file of `prefetch simulate` (docs/delivery.md).
@Suite struct EventFileTests {
    @Test func everyEventOfTheDesignParses() throws {
        let text = """
            {"at": 0, "event": "session_start"}
            {"at": 5, "event": "custom_event", "name": "exit intent", "properties": {"page": "cart", "n": 2, "vip": true, "gone": null}}
            {"at": 9, "event": "purchase", "product_id": "sku-1", "price": 9.99, "currency": "USD", "quantity": 1, "properties": {"gift": false}}
            {"at": 12, "event": "push_click", "campaign_id": "c-1"}

            {"at": 20, "event": "dismiss"}
            {"at": 21, "event": "background"}
            {"at": 22, "event": "foreground"}
            {"at": 23, "event": "orientation", "value": "landscape"}
            {"at": 24.5, "event": "display_next"}
            {"at": 25, "event": "push_click"}
            """
        let events = try EventFile.parse(text)
        #expect(events.map(\.event) == [
            .trigger(.sessionStart),
            .trigger(.customEvent(name: "exit intent", properties: ["page": .string("cart"), "n": .number(2), "vip": .boolean(true)])),
            .trigger(.purchase(Purchase(productID: "sku-1", price: 9.99, currency: "USD", quantity: 1, properties: ["gift": .boolean(false)]))),
            .trigger(.pushClick(campaignID: "c-1")),
            .dismiss, .background, .foreground, .orientation(.landscape), .displayNext,
            .trigger(.pushClick(campaignID: nil)),
        ])
        #expect(events.map(\.at) == [0, 5, 9, 12, 20, 21, 22, 23, 24.5, 25])
        #expect(events[4].line == 6, "line numbers count the blank line")
    }

    @Test func windowsLineEndsAreLineEnds() throws {
        let events = try EventFile.parse("{\"at\": 0, \"event\": \"dismiss\"}\r\n\r\n{\"at\": 1, \"event\": \"display_next\"}\r\n")
        #expect(events.map(\.event) == [.dismiss, .displayNext])
        #expect(events.map(\.line) == [1, 3])
    }

    @Test(arguments: [
        (#"{"at": 0, "event": "session_start"}"# + "\n" + #"{"at": 1, "event": "teleport"}"#, EventFileError(line: 2, "unknown event 'teleport'")),
        (#"{"at": 0, "event": "session_start""#,
         EventFileError(line: 1, "not valid JSON: expected ',' or '}' after the member 'event' (column 35)")),
        ("{\"at\": 0, \"event\": \"dismiss\"}\n\n{\"at\": 1, \"at\": 2, \"event\": \"dismiss\"}",
         EventFileError(line: 3, "at: the key 'at' appears twice in one object")),
        (#"{"at": 1, "event": "custom_event", "name": "e", "properties": {"k": 1, "k": 2}}"#,
         EventFileError(line: 1, "properties.k: the key 'k' appears twice in one object")),
        (#"[1, 2]"#, EventFileError(line: 1, "expected a JSON object")),
        (#"{"event": "dismiss"}"#, EventFileError(line: 1, "\"at\" must be a number of seconds, 0 or more")),
        (#"{"at": -1, "event": "dismiss"}"#, EventFileError(line: 1, "\"at\" must be a number of seconds, 0 or more")),
        (#"{"at": 1, "event": "custom_event"}"#, EventFileError(line: 1, "\"name\" is required")),
        (#"{"at": 1, "event": "purchase", "product_id": "x", "quantity": 1.5}"#, EventFileError(line: 1, "\"quantity\" must be a whole number")),
        (#"{"at": 1, "event": "purchase", "product_id": "x", "price": "free"}"#, EventFileError(line: 1, "\"price\" must be a number")),
        (#"{"at": 1, "event": "custom_event", "name": "e", "properties": [1]}"#, EventFileError(line: 1, "\"properties\" must be an object")),
        (#"{"at": 1, "event": "orientation", "value": "UPSIDE_DOWN"}"#, EventFileError(line: 1, "\"value\" must be PORTRAIT or LANDSCAPE, not 'UPSIDE_DOWN'")),
        ("{\"at\": 5, \"event\": \"dismiss\"}\n{\"at\": 4, \"event\": \"dismiss\"}", EventFileError(line: 2, "\"at\" 4 is before the previous event's 5")),
    ])
    func badLinesAreRefusedNamingTheLine(text: String, error: EventFileError) {
        #expect(throws: error) { try EventFile.parse(text) }
    }

    @Test func invalidUTF8IsRefusedNamingTheLine() {
        var bytes = Array("{\"at\": 0, \"event\": \"dismiss\"}\n{\"at\": 1, \"event\": \"custom_event\", \"name\": \"caf\u{e9}\"}\n".utf8)
        let accented = bytes.firstIndex(of: 0xC3)!
        bytes[accented] = 0xE9  // é in Latin-1, not UTF-8
        #expect(throws: EventFileError(line: 2, "name: not valid JSON: a string is not valid UTF-8 (column 49)")) {
            try EventFile.parse(bytes)
        }
    }
}
