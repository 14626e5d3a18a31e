import Testing

@testable import AssetCache

/// The `multipart/byteranges` parser on hand-written bodies (RFC 9110 §14.6),
/// hostile ones included: every part must be one range asked, once, of the
/// file's size, and end at the next delimiter.
@Suite struct MultipartByterangesTests {
    static let file = (0..<200).map { UInt8($0) }

    /// A body as nginx frames one: CRLF, delimiter, headers, blank line, bytes.
    static func body(_ parts: [(header: String, bytes: [UInt8])], boundary: String = "3d6b6a416f9b5", close: Bool = true) -> [UInt8] {
        var body: [UInt8] = []
        for part in parts {
            body += Array("\r\n--\(boundary)\r\nContent-Type: application/zip\r\n\(part.header)\r\n\r\n".utf8) + part.bytes
        }
        if close { body += Array("\r\n--\(boundary)--\r\n".utf8) }
        return body
    }

    static func part(_ start: Int, _ end: Int, total: Int = 200) -> (header: String, bytes: [UInt8]) {
        ("Content-Range: bytes \(start)-\(end)/\(total)", Array(file[start...end]))
    }

    static func parse(_ body: [UInt8], asked: [Range<Int64>]) -> Result<[MultipartByteranges.Part], MultipartByteranges.Failure> {
        body.withUnsafeBytes { bytes in
            Result { () throws(MultipartByteranges.Failure) in
                try MultipartByteranges.parse(bytes, boundary: "3d6b6a416f9b5", asked: asked, fileSize: 200)
            }
        }
    }

    @Test func partsAreFoundWhereTheirBytesLie() throws {
        let body = Self.body([Self.part(0, 9), Self.part(100, 149)])
        let parts = try Self.parse(body, asked: [0..<10, 100..<150]).get()
        #expect(parts.map(\.range) == [0..<10, 100..<150])
        for part in parts {
            let count = Int(part.range.upperBound - part.range.lowerBound)
            #expect(Array(body[part.bodyOffset..<part.bodyOffset + count]) == Array(Self.file[Int(part.range.lowerBound)..<Int(part.range.upperBound)]))
        }
        // Fewer parts than asked are the server's right; the rest is asked again.
        #expect(try Self.parse(Self.body([Self.part(100, 149)]), asked: [0..<10, 100..<150]).get().count == 1)
    }

    @Test func theBoundaryIsReadQuotedOrNot() {
        #expect(MultipartByteranges.boundary(contentType: "multipart/byteranges; boundary=3d6b6a416f9b5") == "3d6b6a416f9b5")
        #expect(MultipartByteranges.boundary(contentType: "Multipart/ByteRanges;boundary=\"a b\"") == "a b")
        #expect(MultipartByteranges.boundary(contentType: "multipart/mixed; boundary=x") == nil)
        #expect(MultipartByteranges.boundary(contentType: "multipart/byteranges") == nil)
        #expect(MultipartByteranges.boundary(contentType: "multipart/byteranges; boundary=" + String(repeating: "x", count: 71)) == nil)
        #expect(MultipartByteranges.boundary(contentType: "multipart/byteranges; boundary=a\u{1}b") == nil)
    }

    @Test func hostileBodiesAreRefused() {
        let asked: [Range<Int64>] = [0..<10, 100..<150]
        let cases: [(String, [UInt8])] = [
            // A Content-Range that is not what was asked.
            ("mismatch", Self.body([Self.part(0, 19)])),
            // Overlapping parts: the same range twice, or one inside another asked.
            ("overlap", Self.body([Self.part(0, 9), Self.part(0, 9)])),
            ("inside", Self.body([Self.part(100, 149), Self.part(120, 129)])),
            // A part past the file's end, or of another file's size.
            ("past end", Self.body([("Content-Range: bytes 190-209/200", Array(repeating: 1, count: 20))])),
            ("other size", Self.body([Self.part(0, 9, total: 300)])),
            // A part that never ends: more bytes than its range, no delimiter.
            ("endless", Self.body([Self.part(0, 9)], close: false) + Array(repeating: 7, count: 5000)),
            ("cut off", Array(Self.body([Self.part(100, 149)]).prefix(80))),
            ("no range", Self.body([("X-Other: 1", Array(Self.file[0...9]))])),
            ("bad range", Self.body([("Content-Range: bytes 9-0/200", [])])),
            ("two ranges", Self.body([("Content-Range: bytes 0-9/200\r\nContent-Range: bytes 0-9/200", Array(Self.file[0...9]))])),
            ("no boundary", Array("just bytes".utf8)),
            ("long preamble", Array(repeating: 0x41, count: 2000) + Self.body([Self.part(0, 9)])),
            ("long headers", Self.body([(String(repeating: "X-Pad: aaaaaaaaaa\r\n", count: 200) + "Content-Range: bytes 0-9/200", Array(Self.file[0...9]))])),
        ]
        for (label, body) in cases {
            guard case .failure(let failure) = Self.parse(body, asked: asked) else {
                Issue.record("\(label) was accepted")
                continue
            }
            // Numbers only: nothing the server sent is quoted back.
            #expect(!failure.description.contains("X-Pad") && !failure.description.contains("AAAA"), "\(label)")
        }
    }

    @Test func rangesAreCoalescedAndBatchedDownTheLadder() {
        let reused = [
            EntryComparison.Reuse(index: 0, newRange: 100..<50_000, oldOffset: 100),
            EntryComparison.Reuse(index: 1, newRange: 50_100..<51_000, oldOffset: 60_000),
            EntryComparison.Reuse(index: 2, newRange: 51_050..<90_000, oldOffset: 70_000),
        ]
        // The 900 reusable bytes between two small gaps are fetched: cheaper than another range.
        #expect(RangePlan.ranges(before: 95_000, reused: reused) == [0..<100, 50_000..<51_050, 90_000..<95_000])
        #expect(RangePlan.header([0..<100, 200..<201]) == "Range: bytes=0-99,200-200")
        // A gap the rebuild fills from the cached copy: across reuses that touch, not across a hole.
        let spans = [
            EntryComparison.Reuse(index: 0, newRange: 0..<500, oldOffset: 1000, includesLocalHeader: true),
            EntryComparison.Reuse(index: 1, newRange: 500..<800, oldOffset: 3000, includesLocalHeader: true),
        ]
        let filled = ZipRebuild.pieces(of: 400..<700, from: spans, source: 9)
        #expect(filled?.map(\.range) == [400..<500, 500..<700] && filled?.map(\.offset) == [1400, 3000])
        #expect(ZipRebuild.pieces(of: 100..<50_100, from: reused, source: 9) == nil)
        #expect(ZipRebuild.pieces(of: 200..<300, from: reused, source: 9)?.map(\.offset) == [200])
        #expect(DeltaRefresh.nextStep(after: 0, below: 41) == 2)
        #expect(DeltaRefresh.nextStep(after: 2, below: 7) == 3)
        #expect(DeltaRefresh.nextStep(after: 4, below: 2) == nil)
        #expect(DeltaRefresh.nextStep(after: 0, below: 1) == nil)
        #expect(RangePlan.isAffordable(110, fileSize: 100) && !RangePlan.isAffordable(111, fileSize: 100))
    }
}
