import Foundation
import Testing
@testable import AssetCache

/// The manifest reader reads what Swift's `Decodable` read before it, or refuses
/// what Foundation's JSON decoder let through (a key twice, a lone surrogate, a
/// number out of range).
@Suite struct ManifestReaderTests {
    static let agreeing: [String] = [
        #"{"triggers": []}"#,
        #" { "triggers" : [ ] , "integrity" : null } "#,
        #"{"triggers": [{"id": "a", "type": "inapp", "priority": 2.5, "start_time": -1, "end_time": 1767225600, "delay": 0, "timeout": 1e2, "min_seconds_since_last_trigger": -1, "prefetch": false, "trigger_condition": [{"type": "open"}, {"type": "custom_event", "data": {"event_name": "x", "property_filters": [[{"property_key": "k", "property_type": "number", "comparator": 3, "property_value": -0.5}]], "n": null, "b": true}}], "data": {"type": "MODAL", "image_style": "GRAPHIC", "message": "Sp\u00e4ter \"quoted\"\n", "orientation": "ANY", "image_url": "https://cdn.example.com/a.png", "extras": {"campaign": "spring", "nested": {"list": [1, "two", false, null, {}]}}, "unknown": [1, {"x": "y"}]}, "other": {"deep": [[[]]]}}], "integrity": {"https://cdn.example.com/a.png": "sha256-AAAA"}}"#,
        #"{"triggers": [{"id": "b", "type": "inapp", "data": {"type": "HTML", "asset_urls": ["http://e.com/1.css", "http://e.com/2.js"], "is_control": true, "image_url": null}, "trigger_condition": null}]}"#,
        // Other action types: only type and id are read, whatever the rest holds.
        #"{"triggers": [{"type": "content_card", "id": "c", "priority": "high", "data": 3}]}"#,
        #"{"triggers": [{"id": "d", "type": "inapp", "data": {"message": "tab\tand \\ and \/ and caf\u00e9 und café \ud83d\ude00"}}], "extra": 1.5E-3}"#,
    ]

    /// Each is either refused by both, or read the same; the reader may refuse what Codable took.
    static let doubtful: [String] = [
        #"{"triggers": [{"id": "a", "type": "inapp", "priority": "2"}]}"#,
        #"{"triggers": [{"id": "a", "id": "b", "type": "inapp"}]}"#,
        #"{"triggers": [{"id": 7, "type": "inapp"}]}"#,
        #"{"triggers": [{"id": "a", "type": "inapp", "data": {"message": "\ud83d\ude00 \u00E9"}}]}"#,
        #"{"triggers": [{"id": "a", "type": "inapp", "priority": 1e400}]}"#,
        #"{"triggers": [{"id": "a", "type": "inapp", "data": {"message": "\ud83d alone"}}]}"#,
        #"{"triggers": [{"id": "a\u0000", "type": "inapp"}]}"#,
        #"{"triggers": [{"id": "a", "type": "inapp", "data": {"message": "\x"}}]}"#,
        #"{"triggers": [{"id": "a", "type": "inapp", "priority": 01}]}"#,
        #"{"triggers": [{"id": "a", "type": "inapp", "prefetch": 1}]}"#,
        #"{"triggers": [{"id": "a", "type": "inapp", "trigger_condition": [{"data": {}}]}]}"#,
        #"{"triggers": []} x"#,
        #"{"triggers": [],}"#,
        #"{"integrity": {}}"#,
        #"[]"#,
        "{\"triggers\": [{\"id\": \"a\u{01}\", \"type\": \"inapp\"}]}",
    ]

    static func read(_ bytes: [UInt8]) throws(JSONReadError) -> RawManifest {
        var triggers: [RawTrigger] = []
        let result = bytes.withUnsafeBytes { bytes in
            Result { () throws(JSONReadError) in try ManifestReader.read(bytes) { trigger, _ in triggers.append(trigger) } }
        }
        return RawManifest(triggers: triggers, integrity: try result.get().integrity)
    }

    @Test(arguments: agreeing)
    func readsWhatCodableReads(_ json: String) throws {
        let read = try Self.read(Array(json.utf8))
        #expect(read.withoutUnknownKeys == CodableManifest.read(json))
    }

    @Test(arguments: doubtful)
    func neverDisagreesWithCodable(_ json: String) {
        if let read = try? Self.read(Array(json.utf8)) {
            #expect(read.withoutUnknownKeys == CodableManifest.read(json))
        }
    }

    @Test func invalidUTF8IsRefused() {
        var bytes = Array(#"{"triggers": [{"id": "a", "type": "inapp", "data": {"message": "x"}}]}"#.utf8)
        bytes[bytes.count - 7] = 0xFF
        #expect(throws: JSONReadError.self) { try Self.read(bytes) }
    }

    /// A number in a value the reader skips (an unknown key) is refused or taken
    /// exactly as where it is read (`priority`), though a skipped one is only
    /// converted when it could be out of range.
    @Test(arguments: ["1e400", "-1E+309", "1" + String(repeating: "0", count: 309), "1e-400", "0.5e308",
                      "1" + String(repeating: "0", count: 308), "-" + String(repeating: "9", count: 300) + ".5", "17958489669676938.25"])
    func aSkippedNumberIsJudgedAsARead(_ number: String) {
        let skipped = #"{"triggers": [{"id": "a", "type": "inapp", "later": [\#(number)]}]}"#
        let read = #"{"triggers": [{"id": "a", "type": "inapp", "priority": \#(number)}]}"#
        let outcome = { (json: String) in (try? Self.read(Array(json.utf8))) != nil }
        #expect(outcome(skipped) == outcome(read))
        #expect(outcome(read) == (Double(number).map(\.isFinite) ?? false))
    }

    /// One pass over the bytes: a single tokenizer reads each of them once, and
    /// the model is built from what it hands over.
    @Test func aManifestIsReadInOnePass() throws {
        let json = Self.agreeing[3]
        let passes = JSONPasses()
        let manifest = try JSONPasses.$current.withValue(passes) { try Manifest.decode(Data(json.utf8)) }
        #expect(manifest.actions.map(\.id) == ["b"])
        #expect(passes.bytesReadByEachPass == [json.utf8.count])
    }
}
