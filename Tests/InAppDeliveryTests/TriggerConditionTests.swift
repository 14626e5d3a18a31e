import AssetCache
import Testing
@testable import InAppDelivery

/// Seed, "Trigger types": Any Purchase, Specific Purchase, Session Start, Custom
/// Event and Push Click, the last two kinds of purchase and custom events with
/// property filters (the tables of docs/manifest.md).
@Suite struct TriggerConditionTests {
    func fired(_ condition: [String: Any], by events: [TriggerEvent]) throws -> [Bool] {
        let h = try Harness([action("a", on: [condition])], interval: 0)
        return events.map { event in
            h.engine.handle(event)
            defer { h.engine.dismiss() }
            return h.log.decisions.last?.action == .displayed
        }
    }

    @Test func sessionStartFiresOpenTriggers() throws {
        #expect(try fired(["type": "open"], by: [.sessionStart, .customEvent(name: "open")]) == [true, false])
    }

    @Test func anyPurchaseFiresOnEveryPurchase() throws {
        let events: [TriggerEvent] = [.purchase(Purchase(productID: "x")), .purchase(Purchase(productID: "y")), .sessionStart]
        #expect(try fired(["type": "purchase"], by: events) == [true, true, false])
    }

    @Test func specificPurchaseFiresOnlyForItsProduct() throws {
        let condition: [String: Any] = ["type": "purchase", "data": ["product_id": "sku-1"]]
        let events: [TriggerEvent] = [.purchase(Purchase(productID: "sku-2")), .purchase(Purchase(productID: "sku-1"))]
        #expect(try fired(condition, by: events) == [false, true])
    }

    @Test func purchasePropertyFiltersMustPass() throws {
        let condition: [String: Any] = [
            "type": "purchase_property",
            "data": [
                "product_id": "sku-1",
                "property_filters": [[["property_key": "gift", "property_type": "boolean", "comparator": 1, "property_value": true]]],
            ],
        ]
        let events: [TriggerEvent] = [
            .purchase(Purchase(productID: "sku-1", price: 5, currency: "EUR", quantity: 2, properties: ["gift": .boolean(false)])),
            .purchase(Purchase(productID: "sku-2", properties: ["gift": .boolean(true)])),
            .purchase(Purchase(productID: "sku-1", properties: ["gift": .boolean(true)])),
        ]
        #expect(try fired(condition, by: events) == [false, false, true])
    }

    @Test func customEventFiresByItsName() throws {
        let events: [TriggerEvent] = [.customEvent(name: "exit intent"), .customEvent(name: "Exit Intent"), .customEvent(name: "exit")]
        #expect(try fired(customEvent("exit intent"), by: events) == [true, false, false])
    }

    @Test func customEventPropertyFiltersMustPass() throws {
        let condition = customEvent("level up", filters: #"[[{"property_key": "level", "property_type": "number", "comparator": 4, "property_value": 10}]]"#)
        let events: [TriggerEvent] = [
            .customEvent(name: "level up", properties: ["level": .number(9)]),
            .customEvent(name: "level up", properties: ["level": .number(10)]),
            .customEvent(name: "level up"),
        ]
        #expect(try fired(condition, by: events) == [false, true, false])
    }

    @Test func pushClickFiresForItsCampaign() throws {
        let condition: [String: Any] = ["type": "push_click", "data": ["campaign_id": "c-1"]]
        let events: [TriggerEvent] = [.pushClick(campaignID: "c-2"), .pushClick(campaignID: nil), .pushClick(campaignID: "c-1")]
        #expect(try fired(condition, by: events) == [false, false, true])
    }

    @Test func pushClickWithoutACampaignFiresForAnyPush() throws {
        let events: [TriggerEvent] = [.pushClick(campaignID: "c-2"), .pushClick(campaignID: nil)]
        #expect(try fired(["type": "push_click"], by: events) == [true, true])
    }

    @Test func anyConditionOfAnActionFiresIt() throws {
        let h = try Harness([action("a", on: [customEvent("x"), ["type": "open"]])], interval: 0)
        h.engine.handle(.sessionStart)
        h.engine.dismiss()
        h.custom("x")
        #expect(h.lines == ["0 displayed a", "0 displayed a"])
    }

    @Test func unknownTriggerTypeLoadsWithAWarningAndNeverFires() throws {
        let table = try TriggerTable(try manifest([action("a", on: [["type": "geofence_enter"]])]))
        #expect(table.warnings.map(\.description) == ["triggers[0].trigger_condition[0].type: unknown trigger type 'geofence_enter'; it never fires"])
        #expect(try fired(["type": "geofence_enter"], by: [.sessionStart]) == [false])
    }

    @Test func customEventWithoutANameIsAManifestError() throws {
        let document = try manifest([action("a", on: [["type": "custom_event", "data": [:] as [String: Any]]])])
        #expect(throws: ManifestError(path: "triggers[0].trigger_condition[0].data.event_name", "a custom event trigger needs an event name")) {
            try TriggerTable(document)
        }
    }

    @Test func wronglyTypedProductIDIsAManifestError() throws {
        let document = try manifest([action("a", on: [["type": "purchase", "data": ["product_id": 7]]])])
        #expect(throws: ManifestError(path: "triggers[0].trigger_condition[0].data.product_id", "expected a string")) {
            try TriggerTable(document)
        }
    }

    @Test func errorPathsCountSkippedActionTypes() throws {
        let skipped: [String: Any] = ["id": "c", "type": "content_card"]
        let document = try manifest([skipped, action("a", on: [["type": "push_click", "data": ["campaign_id": false]]])])
        #expect(throws: ManifestError(path: "triggers[1].trigger_condition[0].data.campaign_id", "expected a string")) {
            try TriggerTable(document)
        }
    }
}
