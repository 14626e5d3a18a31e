import Foundation
import Testing
@testable import AssetCache

@Suite struct ManifestTests {
    func decode(_ json: String) throws(ManifestError) -> Manifest {
        try Manifest.decode(Data(json.utf8))
    }

    func error(_ json: String) -> ManifestError? {
        do {
            _ = try decode(json)
            return nil
        } catch {
            return error
        }
    }

    /// A large manifest: every action in order, its warnings, and the first error
    /// with its line.
    @Test func aLargeManifestIsReadWholeInOrder() throws {
        func manifest(_ count: Int, last: String = "") -> Data {
            let triggers = (0..<count).map { index in
                index % 700 == 0 ? #"{"id": "p\#(index)", "type": "push"}"#
                    : #"{"id": "m\#(index)", "type": "inapp", "priority": \#(index % 7), "trigger_condition": [{"type": "custom_event", "data": {"event_name": "e\#(index % 5)"}}], "data": {"type": "MODAL", "image_url": "https://cdn.test/\#(index % 300).png", "extras": {"n": \#(index)}}}"#
            }
            return Data(#"{"triggers": [\#(triggers.joined(separator: ",\n"))\#(last)]}"#.utf8)
        }
        let large = try Manifest.decode(manifest(3000))
        #expect(large.actions.count == 3000 - 5 && large.actions.first?.id == "m1" && large.actions.last?.id == "m2999")
        #expect(large.warnings.count == 5)
        let kept: [Int] = (0..<3000).filter { $0 % 700 != 0 }
        let priorities: [Double] = kept.map { Double($0 % 7) }
        #expect(large.actions.map(\.priority) == priorities)
        #expect(throws: ManifestError.self) { try Manifest.decode(manifest(3000, last: #", {"id": "m2500", "type": "inapp", "data": {}}"#)) }
        let syntax = manifest(3000, last: #", {"id": "m2500", "type": "inapp", "data": {}}, {"id": }"#)
        let syntaxError = try #require(Result { () throws(ManifestError) in try Manifest.decode(syntax) }.failureValue)
        #expect(syntaxError.message.contains("(line 3000, column"), "\(syntaxError)")
    }

    @Test func decodesDefaultsAndAssets() throws {
        let manifest = try decode("""
            {"triggers": [
              {"id": "a", "type": "inapp", "trigger_condition": [{"type": "open"}],
               "data": {"type": "modal", "image_style": "graphic", "image_url": "HTTP://CDN.Test:80/a.png#frag", "unknown": 1}},
              {"id": "p", "type": "push"},
              {"id": "h", "type": "inapp", "priority": 3, "delay": 5, "data": {"type": "HTML", "asset_urls": ["https://cdn.test:443/x.css"]}}
            ]}
            """)
        #expect(manifest.actions.map(\.id) == ["a", "h"])
        #expect(manifest.warnings.count == 1)
        let first = manifest.actions[0]
        #expect(first.message.type == .modal)
        #expect(first.message.imageStyle == .graphic)
        #expect(first.message.imageURL?.string == "http://cdn.test/a.png")
        #expect(first.timeout == 30)
        #expect(first.prefetch)
        #expect(first.isUrgent)
        let second = manifest.actions[1]
        #expect(second.timeout == 35)
        #expect(second.message.assets.map(\.url.string) == ["https://cdn.test/x.css"])
        #expect(second.message.assets.map(\.kind) == [.file])
    }

    @Test func wrongTypeNamesTheJSONPath() {
        let json = #"{"triggers": [{"id": "a", "type": "inapp", "data": {}}, {"id": "b", "type": "inapp", "data": {"image_url": 7}}]}"#
        #expect(error(json)?.path == "triggers[1].data.image_url")
        #expect(error(json)?.message == "expected a string")
    }

    @Test func refusesNonHTTPSchemes() {
        let json = #"{"triggers": [{"id": "a", "type": "inapp", "data": {"image_url": "file:///etc/passwd"}}]}"#
        #expect(error(json)?.path == "triggers[0].data.image_url")
        #expect(error(json)?.message.contains("scheme 'file'") == true)
    }

    @Test func refusesDuplicateAndMissingIDs() {
        let duplicate = #"{"triggers": [{"id": "a", "type": "inapp", "data": {}}, {"id": "a", "type": "inapp", "data": {}}]}"#
        #expect(error(duplicate)?.path == "triggers[1].id")
        let missing = #"{"triggers": [{"type": "inapp", "data": {}}]}"#
        #expect(error(missing)?.path == "triggers[0].id")
    }

    @Test func refusesMissingTriggersAndBadJSON() {
        #expect(error(#"{"integrity": {}}"#)?.path == "triggers")
        #expect(error("{\"triggers\": [").map { $0.message.hasPrefix("not valid JSON") } == true)
    }

    @Test func unknownMessageTypeIsNotAManifestError() throws {
        let manifest = try decode(#"{"triggers": [{"id": "a", "type": "inapp", "data": {"type": "CAROUSEL"}}]}"#)
        #expect(manifest.actions[0].message.type == .unsupported("CAROUSEL"))
    }

    @Test func integrityAcceptsOnlySHA256() throws {
        let digest = Data(repeating: 7, count: 32).base64EncodedString()
        let manifest = try decode(#"{"triggers": [], "integrity": {"http://cdn.test/a.png": "sha256-\#(digest)"}}"#)
        #expect(manifest.integrity[try AssetURL(parsing: "http://cdn.test/a.png")] == Array(repeating: 7, count: 32))
        let md5 = #"{"triggers": [], "integrity": {"http://cdn.test/a.png": "md5-abc"}}"#
        #expect(error(md5)?.message.contains("'md5'") == true)
    }

    @Test func urlNormalisation() throws {
        #expect(try AssetURL(parsing: "HTTPS://Example.COM:443?q=1#x").string == "https://example.com/?q=1")
        #expect(try AssetURL(parsing: "http://example.com:8080/A").string == "http://example.com:8080/A")
        #expect(try AssetURL(parsing: "http://example.com/a?cache=false").forbidsCaching)
        #expect(throws: AssetURL.ParseError.self) { try AssetURL(parsing: "http://exa mple.com/") }
    }
}

extension Result {
    var failureValue: Failure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }
}
