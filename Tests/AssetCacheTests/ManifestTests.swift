import Foundation
import Synchronization
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

    /// A large manifest's model is built on a second thread from batches of
    /// triggers: the same actions in the same order, the same warnings, and the
    /// same first error as when one thread reads and builds.
    @Test func aModelBuiltOnASecondThreadIsTheSame() throws {
        func manifest(_ count: Int, last: String = "") -> Data {
            let triggers = (0..<count).map { index in
                index % 700 == 0 ? #"{"id": "p\#(index)", "type": "push"}"#
                    : #"{"id": "m\#(index)", "type": "inapp", "priority": \#(index % 7), "trigger_condition": [{"type": "custom_event", "data": {"event_name": "e\#(index % 5)"}}], "data": {"type": "MODAL", "image_url": "https://cdn.test/\#(index % 300).png", "extras": {"n": \#(index)}}}"#
            }
            return Data(#"{"triggers": [\#(triggers.joined(separator: ",\n"))\#(last)]}"#.utf8)
        }
        func outcome(_ data: Data, onTwoThreads: Bool) -> Result<([String], [String], [Double]), ManifestError> {
            Result { () throws(ManifestError) in
                let decoded = try Manifest.decode(data, onTwoThreads: onTwoThreads)
                return (decoded.actions.map(\.id), decoded.warnings, decoded.actions.map(\.priority))
            }
        }
        let large = manifest(3000)
        #expect(large.count > 128 * 1024)
        let (ids, warnings, _) = try outcome(large, onTwoThreads: true).get()
        #expect(ids.count == 3000 - 5 && ids.first == "m1" && ids.last == "m2999" && warnings.count == 5)
        let duplicate = manifest(3000, last: #", {"id": "m2500", "type": "inapp", "data": {}}"#)
        let syntax = manifest(3000, last: #", {"id": "m2500", "type": "inapp", "data": {}}, {"id": }"#)
        for data in [large, duplicate, syntax] {
            let one = outcome(data, onTwoThreads: false), two = outcome(data, onTwoThreads: true)
            switch (one, two) {
            case (.success(let a), .success(let b)): #expect(a.0 == b.0 && a.1 == b.1 && a.2 == b.2)
            case (.failure(let a), .failure(let b)): #expect(a == b)
            default: Issue.record("one thread gave \(one), two gave \(two)")
            }
        }
        #expect(throws: ManifestError.self) { try Manifest.decode(duplicate, onTwoThreads: true) }
        let syntaxError = try #require(outcome(syntax, onTwoThreads: true).failureValue)
        #expect(syntaxError.message.contains("(line 3000, column"), "\(syntaxError)")
    }

    /// On two threads the second half of `triggers` is read by a reader of its
    /// own, from a place guessed near the middle and proved by the first reader
    /// arriving there: every outcome, errors and their places included, is the
    /// one reading alone gives, wherever the fault and whatever the guess hit.
    @Test(arguments: [
        ("valid", 0, ""),
        ("a shape mismatch in the second half", 2500, #""priority": "high", "#),
        ("mismatches in both halves", 10, #""delay": "soon", "#),
        ("a syntax error in the second half", 2500, #""priority": 1 2, "#),
        ("a key twice in the second half", 2999, #""id": "again", "#),
        ("nesting too deep in the second half", 2000, #""extras2": \#(String(repeating: "[", count: 130)), "#),
        ("the middle inside a string", 1500, #""message": "\#(String(repeating: "}, {", count: 40_000))", "#),
    ])
    func aManifestReadInTwoHalvesGivesWhatOneReaderGives(_ name: String, at trigger: Int, insert: String) {
        var triggers = (0..<3000).map { index in
            #"{"id": "m\#(index)", "type": "inapp", "trigger_condition": [{"type": "open"}],\#n "data": {"type": "MODAL", "image_url": "https://cdn.test/\#(index % 300).png"}}"#
        }
        triggers[trigger] = triggers[trigger].replacingOccurrences(of: #""type": "inapp", "#, with: #""type": "inapp", "# + insert)
        if name == "mismatches in both halves" {
            triggers[2600] = triggers[2600].replacingOccurrences(of: #""type": "inapp", "#, with: #""type": "inapp", "priority": [], "#)
        }
        let data = Data(#"{"triggers": [\#(triggers.joined(separator: ",\n"))], "integrity": {}}"#.utf8)
        let one = Result { () throws(ManifestError) in try Manifest.decode(data, onTwoThreads: false).actions.map(\.id) }
        let two = Result { () throws(ManifestError) in try Manifest.decode(data, onTwoThreads: true).actions.map(\.id) }
        switch (one, two) {
        case (.success(let a), .success(let b)): #expect(a == b && a.count == 3000, "\(name)")
        case (.failure(let a), .failure(let b)): #expect(a == b, "\(name)")
        default: Issue.record("\(name): one reader gave \(one), two gave \(two)")
        }
        if name != "valid" && name != "the middle inside a string" {
            #expect(one.failureValue?.path.hasPrefix("triggers[\(trigger)]") == true, "\(name): \(one)")
        }
        if name == "a syntax error in the second half" {
            // Line 2 of each trigger (the \n in it) and the one before: line 2 * 2500 + 1.
            #expect(one.failureValue?.message.contains("(line 5001, column") == true, "\(one)")
        }
    }

    /// What `plan` looks up in the cache while the manifest is read: each URL once,
    /// whichever thread builds the model.
    @Test func eachNewURLIsToldOnceForEveryURLOnBothPaths() throws {
        let triggers = (0..<3000).map { index in
            #"{"id": "m\#(index)", "type": "inapp", "data": {"type": "HTML", "image_url": "https://cdn.test/\#(index % 300).png", "asset_urls": ["https://cdn.test/z\#(index % 7).css", "HTTPS://CDN.TEST:443/z\#(index % 7).css"]}}"#
        }
        let data = Data(#"{"triggers": [\#(triggers.joined(separator: ",\n"))]}"#.utf8)
        #expect(data.count > 128 * 1024)
        for onTwoThreads in [false, true] {
            let told = Mutex<[AssetURL]>([])
            let manifest = try Manifest.decode(data, onTwoThreads: onTwoThreads) { url in told.withLock { $0.append(url) } }
            let urls = told.withLock { $0 }
            let used = Set(manifest.actions.flatMap { $0.message.assets.map(\.url) })
            // The two spellings of each stylesheet are one URL, but two strings: told
            // twice. An HTML message's image_url is no asset of it, but is told too.
            #expect(urls.count == 300 + 14, "two threads: \(onTwoThreads)")
            #expect(Set(urls).count == 307 && used.count == 7 && used.isSubset(of: urls), "two threads: \(onTwoThreads)")
        }
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
