import AssetCache
import Testing
@testable import InAppDelivery

/// Every comparator of docs/manifest.md with the property present (passing and not),
/// missing, and of the wrong type: a missing or wrongly typed property fails every
/// comparator except 2, 12 and 17, which pass.
@Suite struct PropertyFilterTests {
    @Test func equalsComparesValuesOfTheFilterType() throws {
        let text = try filter("string", 1, #""gold""#)
        #expect(text.passes(.string("gold")))
        #expect(!text.passes(.string("Gold")), "equality is exact; only regexes ignore case")
        #expect(!text.passes(nil))
        #expect(!text.passes(.number(1)))
        let number = try filter("number", 1, "3")
        #expect(number.passes(.number(3.0)))
        #expect(!number.passes(.number(4)))
        #expect(!number.passes(.string("3")))
        let flag = try filter("boolean", 1, "true")
        #expect(flag.passes(.boolean(true)))
        #expect(!flag.passes(.boolean(false)))
        #expect(!flag.passes(nil))
    }

    @Test func notEqualPassesForMissingAndWronglyTypedProperties() throws {
        let check = try filter("string", 2, #""gold""#)
        #expect(check.passes(.string("silver")))
        #expect(!check.passes(.string("gold")))
        #expect(check.passes(nil))
        #expect(check.passes(.boolean(true)))
    }

    @Test func greaterThan() throws {
        let check = try filter("number", 3, "10")
        #expect(check.passes(.number(10.5)))
        #expect(!check.passes(.number(10)))
        #expect(!check.passes(nil))
        #expect(!check.passes(.string("11")))
    }

    @Test func greaterThanOrEqual() throws {
        let check = try filter("number", 4, "10")
        #expect(check.passes(.number(10)))
        #expect(!check.passes(.number(9.99)))
        #expect(!check.passes(nil))
        #expect(!check.passes(.boolean(true)))
    }

    @Test func lessThan() throws {
        let check = try filter("number", 5, "10")
        #expect(check.passes(.number(-3)))
        #expect(!check.passes(.number(10)))
        #expect(!check.passes(nil))
        #expect(!check.passes(.string("1")))
    }

    @Test func lessThanOrEqual() throws {
        let check = try filter("number", 6, "10")
        #expect(check.passes(.number(10)))
        #expect(!check.passes(.number(11)))
        #expect(!check.passes(nil))
        #expect(!check.passes(.date(1)))
    }

    @Test func matchesIsACaseInsensitiveUnanchoredRegex() throws {
        let check = try filter("string", 10, #""^check(out)?""#)
        #expect(check.passes(.string("Checkout/cart")))
        #expect(try filter("string", 10, #""sale""#).passes(.string("Summer SALE now")))
        #expect(!check.passes(.string("cart/checkout")))
        #expect(!check.passes(nil))
        #expect(!check.passes(.number(1)))
    }

    @Test func existsNeedsAPropertyOfTheFilterType() throws {
        let check = try filter("string", 11)
        #expect(check.passes(.string("")))
        #expect(!check.passes(nil))
        #expect(!check.passes(.number(0)))
    }

    @Test func doesNotExistPassesForMissingAndWronglyTypedProperties() throws {
        let check = try filter("number", 12)
        #expect(!check.passes(.number(0)))
        #expect(check.passes(nil))
        #expect(check.passes(.string("0")))
    }

    @Test func dateLessThanSecondsAgoIsMeasuredOnTheEngineClock() throws {
        let check = try filter("date", 15, "3600")
        let signup = EventProperty.date(Harness.start)
        #expect(check.passes(signup, at: 3599))
        #expect(!check.passes(signup, at: 3600))
        #expect(!check.passes(nil))
        #expect(!check.passes(.number(Harness.start)), "a number is not a date")
    }

    @Test func dateMoreThanSecondsAgoIsMeasuredOnTheEngineClock() throws {
        let check = try filter("date", 16, "86400")
        let signup = EventProperty.string("2026-01-01T00:00:00Z")
        #expect(!check.passes(signup, at: 86400))
        #expect(check.passes(signup, at: 86401))
        #expect(!check.passes(nil))
        #expect(!check.passes(.string("yesterday")), "a string that is no ISO 8601 date is the wrong type")
    }

    @Test func doesNotMatchPassesForMissingAndWronglyTypedProperties() throws {
        let check = try filter("string", 17, #""^test""#)
        #expect(check.passes(.string("production")))
        #expect(!check.passes(.string("TESTING")))
        #expect(check.passes(nil))
        #expect(check.passes(.number(1)))
    }

    @Test func datesCompareAsInstants() throws {
        let after = try filter("date", 3, #""2026-01-01T00:00:00Z""#)
        #expect(after.passes(.string("2026-01-01T00:00:01.500+00:00")))
        #expect(after.passes(.date(Harness.start + 1)))
        #expect(!after.passes(.string("2025-12-31T23:59:59Z")))
        #expect(!after.passes(nil))
        let exactly = try filter("date", 1, String(Int(Harness.start)))
        #expect(exactly.passes(.string("2026-01-01T01:00:00+01:00")))
    }

    @Test(arguments: [13, 14, 18, 19])
    func locationComparatorsLoadWithAWarningAndNeverPass(comparator: Int) throws {
        let check = try filter("string", comparator, #""x""#)
        #expect(check.warnings == ["f.comparator: location comparator \(comparator); this filter never passes"])
        #expect(!check.passes(.string("x")))
        #expect(!check.passes(nil), "not even the missing-property rule applies")
    }

    @Test func unknownComparatorsAndTypesLoadWithAWarningAndNeverPass() throws {
        let comparator = try filter("string", 99, #""x""#)
        #expect(comparator.warnings == ["f.comparator: unknown comparator 99; this filter never passes"])
        #expect(!comparator.passes(nil))
        let type = try filter("location", 1, #""x""#)
        #expect(type.warnings == ["f.property_type: unknown type 'location'; this filter never passes"])
        #expect(!type.passes(.string("x")))
    }

    @Test func comparatorThatMeansNothingForTheTypeWarnsAndNeverPasses() throws {
        let check = try filter("boolean", 3, "true")
        #expect(check.warnings == ["f.comparator: comparator 3 does not apply to boolean properties; this filter never passes"])
        #expect(!check.passes(.boolean(true)))
    }

    @Test func filtersAreAndOfOrs() throws {
        let condition = customEvent("e", filters: #"""
            [[{"property_key": "a", "property_type": "number", "comparator": 1, "property_value": 1},
              {"property_key": "b", "property_type": "number", "comparator": 1, "property_value": 1}],
             [{"property_key": "c", "property_type": "boolean", "comparator": 1, "property_value": true}]]
            """#)
        let h = try Harness([action("a", on: [condition])], interval: 0)
        let cases: [([String: EventProperty], Bool)] = [
            (["a": .number(1), "c": .boolean(true)], true),
            (["b": .number(1), "c": .boolean(true)], true),
            (["a": .number(1), "b": .number(1)], false),
            (["c": .boolean(true)], false),
        ]
        for (properties, expected) in cases {
            h.custom("e", properties)
            #expect((h.log.decisions.last?.action == .displayed) == expected, "\(properties)")
            h.engine.dismiss()
        }
    }

    @Test func emptyGroupNeverPassesAndSaysSo() throws {
        let table = try TriggerTable(try manifest([action("a", on: [customEvent("e", filters: "[[]]")])]))
        #expect(table.warnings.map(\.description) == ["triggers[0].trigger_condition[0].data.property_filters[0]: an empty group of filters never passes"])
    }

    @Test func invalidRegexIsAManifestErrorNamingItsPath() throws {
        let filters = #"""
            [[{"property_key": "a", "property_type": "string", "comparator": 11}],
             [{"property_key": "a", "property_type": "string", "comparator": 11},
              {"property_key": "b", "property_type": "string", "comparator": 10, "property_value": "(unclosed"}]]
            """#
        let document = try manifest([
            action("x"), action("y"),
            action("z", on: [customEvent("e", filters: filters)]),
        ])
        let path = "triggers[2].trigger_condition[0].data.property_filters[1][1].property_value"
        #expect(throws: ManifestError(path: path, "'(unclosed' is not a valid regular expression")) {
            try TriggerTable(document)
        }
    }

    @Test func propertyValueOfTheWrongTypeIsAManifestError() throws {
        #expect(throws: ManifestError(path: "f.property_value", "expected a number for a number filter")) {
            try filter("number", 3, #""10""#)
        }
        #expect(throws: ManifestError(path: "f.property_value", "expected a number of seconds")) {
            try filter("date", 15, "-1")
        }
        #expect(throws: ManifestError(path: "f.comparator", "expected an integer")) {
            try FilterCheck(#"{"property_key": "p", "property_type": "number", "comparator": "3"}"#)
        }
    }
}
