import Foundation
import Testing
@testable import AssetCache

/// Refs are read back by the manifest's strict reader: whatever the store
/// writes reads back equal, and anything that is not a whole ref is no ref.
@Suite struct AssetRefReadingTests {
    let ref = AssetRef(
        url: "https://e.com/a b/\u{E9}.png?x=\"1\"", object: String(repeating: "ab", count: 32), etag: "W/\"1\\2\"",
        lastModified: "Sun, 06 Nov 1994 08:49:37 GMT", fetchedAt: 1_795_431_259.8146396, maxAge: 0.1, bytes: 2346, kind: .archive)

    private func written(_ ref: AssetRef) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Array(try encoder.encode(ref))
    }

    @Test func whatTheStoreWritesReadsBackEqual() throws {
        #expect(AssetRef(json: try written(ref)) == ref)
        var bare = ref
        bare.etag = nil
        bare.lastModified = nil
        bare.maxAge = nil
        bare.kind = .image
        #expect(AssetRef(json: try written(bare)) == bare)
    }

    /// A ref of one kind is written as before `kinds` existed, so that older
    /// readers read it; one of several kinds lists them all.
    @Test func kindsAreWrittenOnlyWhenThereAreSeveral() throws {
        #expect(!String(decoding: try written(ref), as: UTF8.self).contains("kinds"))
        var both = ref
        both.passedKinds = AssetKinds([.file, .archive])
        let text = String(decoding: try written(both), as: UTF8.self)
        #expect(text.contains(#""kind":"archive","kinds":["archive","file"]"#), "\(text)")
        #expect(AssetRef(json: try written(both)) == both)
        #expect(AssetRef(json: try written(both))?.passedKinds == AssetKinds([.archive, .file]))
        // One kind listed alone says what `kind` says.
        let single = #"{"url":"http://e.com/a","object":"ab","bytes":1,"kind":"image","kinds":["image"],"fetched_at":5}"#
        #expect(AssetRef(json: Array(single.utf8))?.passedKinds == AssetKinds(.image))
    }

    @Test func unknownKeysAndNullOptionalsAreAccepted() {
        let text = #"{"url":"http://e.com/a","object":"ab","bytes":1,"kind":"image","fetched_at":5,"etag":null,"later":[1,{"x":2}]}"#
        let read = AssetRef(json: Array(text.utf8))
        #expect(read == AssetRef(url: "http://e.com/a", object: "ab", etag: nil, lastModified: nil, fetchedAt: 5, maxAge: nil, bytes: 1, kind: .image))
    }

    @Test(arguments: [
        "",
        "[]",
        #"{"url":"http://e.com/a","object":"ab","bytes":1,"kind":"image"}"#,
        #"{"url":"http://e.com/a","object":"ab","bytes":1,"kind":"image","fetched_at":5,"url":"http://evil/"}"#,
        #"{"url":"http://e.com/a","object":"ab","bytes":1.5,"kind":"image","fetched_at":5}"#,
        #"{"url":"http://e.com/a","object":"ab","bytes":-1,"kind":"image","fetched_at":5}"#,
        #"{"url":"http://e.com/a","object":"ab","bytes":1,"kind":"video","fetched_at":5}"#,
        #"{"url":"http://e.com/a","object":null,"bytes":1,"kind":"image","fetched_at":5}"#,
        #"{"url":"http://e.com/a","object":"ab","bytes":1,"kind":"image","fetched_at":5,"etag":7}"#,
        #"{"url":"http://e.com/a","object":"ab","bytes":1,"kind":"image","fetched_at":5} x"#,
        // `kinds` that do not say one coherent thing with `kind`.
        #"{"url":"http://e.com/a","object":"ab","bytes":1,"kind":"image","kinds":[],"fetched_at":5}"#,
        #"{"url":"http://e.com/a","object":"ab","bytes":1,"kind":"image","kinds":["archive"],"fetched_at":5}"#,
        #"{"url":"http://e.com/a","object":"ab","bytes":1,"kind":"archive","kinds":["image","archive"],"fetched_at":5}"#,
        #"{"url":"http://e.com/a","object":"ab","bytes":1,"kind":"image","kinds":["image","image"],"fetched_at":5}"#,
        #"{"url":"http://e.com/a","object":"ab","bytes":1,"kind":"image","kinds":["image","video"],"fetched_at":5}"#,
        #"{"url":"http://e.com/a","object":"ab","bytes":1,"kind":"image","kinds":["image",1],"fetched_at":5}"#,
        #"{"url":"http://e.com/a","object":"ab","bytes":1,"kind":"image","kinds":"image","fetched_at":5}"#,
    ])
    func anythingButAWholeRefIsNoRef(_ text: String) {
        #expect(AssetRef(json: Array(text.utf8)) == nil)
    }

    @Test func invalidUTF8IsNoRef() {
        var bytes = Array(#"{"url":"http://e.com/a","object":"ab","bytes":1,"kind":"image","fetched_at":5}"#.utf8)
        bytes[18] = 0xFF
        #expect(AssetRef(json: bytes) == nil)
    }

    /// `accept_ranges` (issue 30's delta) is written only when true: refs of
    /// servers without ranges, and refs written before, are unchanged.
    @Test func acceptRangesIsWrittenOnlyWhenTrue() throws {
        #expect(!String(decoding: try written(ref), as: UTF8.self).contains("accept_ranges"))
        var ranged = ref
        ranged.acceptsRanges = true
        #expect(String(decoding: try written(ranged), as: UTF8.self).contains(#""accept_ranges":true"#))
        #expect(AssetRef(json: try written(ranged)) == ranged)
        let old = #"{"url":"http://e.com/a","object":"ab","bytes":1,"kind":"archive","fetched_at":5}"#
        #expect(AssetRef(json: Array(old.utf8))?.acceptsRanges == nil)
        let no = #"{"url":"http://e.com/a","object":"ab","bytes":1,"kind":"archive","fetched_at":5,"accept_ranges":false}"#
        #expect(AssetRef(json: Array(no.utf8))?.acceptsRanges == nil)
        #expect(ResponseHeaders(fields: ["Accept-Ranges": "none"]).acceptsByteRanges == nil)
        #expect(ResponseHeaders(fields: ["Accept-Ranges": " Bytes "]).acceptsByteRanges == true)
    }
}
