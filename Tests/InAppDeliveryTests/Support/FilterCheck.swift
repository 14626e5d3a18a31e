import AssetCache
import Foundation
@testable import InAppDelivery

/// One filter compiled from its JSON, evaluated against properties at a time
/// given in seconds after `Harness.start`.
struct FilterCheck {
    let filter: PropertyFilter
    let warnings: [String]

    init(_ json: String) throws {
        var parser = PropertyFilterParser()
        filter = try parser.filter(try JSONDecoder().decode(JSONValue.self, from: Data(json.utf8)), path: "f")
        warnings = parser.warnings.map(\.description)
    }

    func passes(_ properties: [String: EventProperty], at seconds: Double = 0) -> Bool {
        filter.passes(properties, now: Harness.start + seconds)
    }

    /// The property under test is always called "p".
    func passes(_ value: EventProperty?, at seconds: Double = 0) -> Bool {
        passes(value.map { ["p": $0] } ?? [:], at: seconds)
    }
}

func filter(_ type: String, _ comparator: Int, _ value: String? = nil) throws -> FilterCheck {
    let operand = value.map { #", "property_value": \#($0)"# } ?? ""
    return try FilterCheck(#"{"property_key": "p", "property_type": "\#(type)", "comparator": \#(comparator)\#(operand)}"#)
}
