import Foundation
import Testing

@testable import AssetCache

/// Manifests that are wrong or malicious (issue 4, point 4): each is refused with
/// the JSON path of the culprit, before anything is fetched.
@Suite struct HostileManifestTests {
    func error(_ json: String) -> ManifestError? {
        do {
            _ = try Manifest.decode(Data(json.utf8))
            return nil
        } catch {
            return error
        }
    }

    static func action(_ fields: String, data: String = "{}") -> String {
        #"{"triggers": [{"id": "a", "type": "inapp", \#(fields)"data": \#(data)}]}"#
    }

    @Test(arguments: [
        // Malformed JSON: where, and what.
        ("", "", "not valid JSON: the manifest is empty"),
        (#"{"triggers": [}"#, "triggers[0]", "not valid JSON: unexpected '}' where a value should be (line 1, column 15)"),
        (#"{"triggers": [],}"#, "", "not valid JSON: expected a string key (line 1, column 17)"),
        (#"{"triggers": []"#, "", "not valid JSON: expected ',' or '}' after the member 'triggers' (line 1, column 16)"),
        (#"{"triggers": []} {}"#, "", "not valid JSON: unexpected data after the end of the document (line 1, column 18)"),
        ("{\"triggers\": [\n  {\"id\": 'a'}]}", "triggers[0].id", "not valid JSON: unexpected ''' where a value should be (line 2, column 10)"),
        (#"{"triggers": [{"id": "a\q"}]}"#, "triggers[0].id", "not valid JSON: unknown escape \\q in a string (line 1, column 25)"),
        ("{\"triggers\": [{\"id\": \"a\nb\"}]}", "triggers[0].id", "not valid JSON: a string contains the control character byte 0x0A; escape it (line 1, column 24)"),
        (#"{"triggers": [{"id": "\ud800"}]}"#, "triggers[0].id", "not valid JSON: a \\u escape has a high surrogate without its low one (line 1, column 29)"),
        (#"{"triggers": [01]}"#, "triggers[0]", "not valid JSON: expected ',' or ']' after an array element (line 1, column 16)"),
        // Numbers no manifest means: huge, NaN-like, fractional where whole, negative.
        (action(#""priority": 1e400, "#), "triggers[0].priority", "the number 1e400 is out of range"),
        (action(#""priority": -1e999, "#), "triggers[0].priority", "the number -1e999 is out of range"),
        (action(#""priority": NaN, "#), "triggers[0].priority", "not valid JSON: unexpected 'N' where a value should be (line 1, column 56)"),
        (action(#""priority": Infinity, "#), "triggers[0].priority", "not valid JSON: unexpected 'I' where a value should be (line 1, column 56)"),
        (action(#""priority": "NaN", "#), "triggers[0].priority", "expected a number"),
        (action(#""priority": 1e300, "#), "triggers[0].priority", "1e+300 is out of range"),
        (action(#""start_time": 12345678901234567890123, "#), "triggers[0].start_time", "1.2345678901234568e+22 is out of range"),
        (action(#""end_time": 1767225600.5, "#), "triggers[0].end_time", "1767225600.5 is not a whole number of seconds"),
        (action(#""delay": 0.25, "#), "triggers[0].delay", "0.25 is not a whole number of seconds"),
        (action(#""timeout": -30, "#), "triggers[0].timeout", "-30.0 is negative"),
        (action(#""min_seconds_since_last_trigger": -2, "#), "triggers[0].min_seconds_since_last_trigger",
         "-2.0 is negative; use -1 for none"),
        // Wrong types, ids, schemes, and keys given twice.
        (action(#""prefetch": "yes", "#), "triggers[0].prefetch", "expected true or false"),
        (action("", data: #"{"asset_urls": ["http://cdn.test/a.css", 3]}"#), "triggers[0].data.asset_urls[1]", "expected a string"),
        (action("", data: #"{"image_url": "javascript:alert(1)"}"#), "triggers[0].data.image_url",
         "'javascript:alert(1)' uses scheme 'javascript'; only http and https are allowed"),
        (action("", data: #"{"image_url": "ftp://cdn.test/a.png"}"#), "triggers[0].data.image_url",
         "'ftp://cdn.test/a.png' uses scheme 'ftp'; only http and https are allowed"),
        (action(#""id": "b", "#), "triggers[0].id", "the key 'id' appears twice in one object"),
        (#"{"triggers": [{"id": "", "type": "inapp", "data": {}}]}"#, "triggers[0].id", "every action needs a non-empty id"),
        (#"{"triggers": {}}"#, "triggers", "expected an array"),
        ("[]", "", "expected an object"),
    ])
    func refusedNamingThePath(json: String, path: String, message: String) {
        #expect(error(json) == ManifestError(path: path, message))
    }

    @Test func invalidUTF8IsNamed() {
        var data = Data(#"{"triggers": [{"id": "a"#.utf8)
        data.append(contentsOf: [0xFF, 0x22, 0x7D, 0x5D, 0x7D])
        #expect(throws: ManifestError(path: "triggers[0].id", "not valid JSON: a string is not valid UTF-8 (line 1, column 25)")) {
            try Manifest.decode(data)
        }
    }

    @Test func deepNestingIsRefusedWhereItHappens() {
        // The 128th bracket opens level 129: column 22 + 128 on the first line.
        let deep = #"{"triggers": [], "x": "# + String(repeating: "[", count: 100_000)
        #expect(error(deep) == ManifestError(
            path: "x[0][0][0][0][0][0][0]…[0][0][0][0]", "nested deeper than \(JSONReader.maxDepth) levels (line 1, column 150)"))
        // One bracket a line: the 128th is on line 129.
        let tall = "{\"triggers\": [],\n \"x\": [" + String(repeating: "\n[", count: 200)
        #expect(error(tall)?.message == "nested deeper than \(JSONReader.maxDepth) levels (line 129, column 1)")
    }

    @Test func pathsQuoteKeysThatAreNotIdentifiers() {
        #expect(error(#"{"triggers": [], "x": [{"": [1, ]}]}"#) == ManifestError(
            path: #"x[0][""][1]"#, "not valid JSON: unexpected ']' where a value should be (line 1, column 33)"))
        #expect(error(#"{"triggers": [], "a b": {"c\"d": {"ok_1": tru}}}"#) == ManifestError(
            path: #"["a b"]["c\"d"].ok_1"#, "not valid JSON: unexpected 't' where a value should be (line 1, column 43)"))
    }

    @Test func validJSONOfEveryShapePasses() throws {
        let json = #"""
            {"triggers": [{"id": "a\u00e9\ud83d\ude00\n", "type": "inapp", "priority": -0.5e-3, "start_time": -1,
              "end_time": 1767225600, "data": {"type": "MODAL", "is_control": true,
              "extras": {"": "", "list": [1, 2.5, {"deep": [true, false, null, [], {}]}], "s": "\"\\\/\b\f\r\t"}}}],
             "integrity": {}}
            """#
        let manifest = try Manifest.decode(Data(json.utf8))
        #expect(manifest.actions.map(\.id) == ["aé😀\n"])
    }
}
