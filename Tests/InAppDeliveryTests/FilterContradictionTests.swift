import AssetCache
import Foundation
import Testing
@testable import InAppDelivery

/// The conservative rule of docs/manifest.md for filters that never pass
/// together, and the did-you-mean of an unknown trigger type.
@Suite struct FilterContradictionTests {
    /// One group per filter (each must pass): `[[a], [b]]`.
    static func contradiction(_ a: String, _ b: String, together: Bool = false) throws -> String? {
        var parser = PropertyFilterParser()
        let groups = together ? "[[\(a), \(b)]]" : "[[\(a)], [\(b)]]"
        let json = try JSONDecoder().decode(JSONValue.self, from: Data(groups.utf8))
        return FilterContradiction.find(in: try parser.filters(json, path: "f"))
    }

    static func f(_ type: String, _ comparator: Int, _ value: String? = nil, key: String = "p") -> String {
        let operand = value.map { #", "property_value": \#($0)"# } ?? ""
        return #"{"property_key": "\#(key)", "property_type": "\#(type)", "comparator": \#(comparator)\#(operand)}"#
    }

    @Test func disjointRangesEqualsAndNotEqualsAndExistenceContradict() throws {
        #expect(try Self.contradiction(Self.f("number", 3, "10"), Self.f("number", 5, "5")) == "'p' must be > 10 and < 5 (groups [0] and [1])")
        #expect(try Self.contradiction(Self.f("number", 3, "5"), Self.f("number", 5, "5")) != nil, "> 5 and < 5")
        #expect(try Self.contradiction(Self.f("number", 1, "3"), Self.f("number", 1, "4")) != nil)
        #expect(try Self.contradiction(Self.f("string", 1, #""a""#), Self.f("string", 1, #""b""#)) == "'p' must equal 'a' and 'b' (groups [0] and [1])")
        #expect(try Self.contradiction(Self.f("string", 1, #""a""#), Self.f("string", 2, #""a""#)) != nil)
        #expect(try Self.contradiction(Self.f("string", 11), Self.f("string", 12)) == "'p' must exist and not exist (groups [0] and [1])")
        #expect(try Self.contradiction(Self.f("number", 3, "1"), Self.f("boolean", 1, "true")) == "'p' must be a number and a boolean (groups [0] and [1])")
    }

    @Test func whatSomeValueSatisfiesIsNoContradiction() throws {
        #expect(try Self.contradiction(Self.f("number", 4, "5"), Self.f("number", 6, "5")) == nil, ">= 5 and <= 5: 5")
        #expect(try Self.contradiction(Self.f("number", 3, "10"), Self.f("number", 5, "5"), together: true) == nil, "one group is an OR")
        #expect(try Self.contradiction(Self.f("number", 3, "10"), Self.f("number", 5, "5", key: "q")) == nil, "two properties")
        #expect(try Self.contradiction(Self.f("string", 1, #""2026-01-01T00:00:00Z""#), Self.f("date", 3, "0")) == nil, "an ISO string is a date too")
        #expect(try Self.contradiction(Self.f("string", 2, #""a""#), Self.f("string", 2, #""b""#)) == nil)
    }

    @Test func unknownTriggerTypesSuggestTheKnownOneMeant() {
        #expect(TriggerTypeSuggestion.suggestion(for: "session_start") == "open")
        #expect(TriggerTypeSuggestion.suggestion(for: "App-Open") == "open")
        #expect(TriggerTypeSuggestion.suggestion(for: "purchse") == "purchase")
        #expect(TriggerTypeSuggestion.suggestion(for: "customEvent") == "custom_event")
        #expect(TriggerTypeSuggestion.suggestion(for: "notification_click") == "push_click")
        #expect(TriggerTypeSuggestion.suggestion(for: "geofence_enter") == nil)
    }
}
