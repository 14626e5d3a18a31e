import FixtureServer
import Testing

@Suite struct MultipartRangeTests {
    private let size = Fixture.blob.count

    @Test func severalRangesAreOneMultipartAnswer() async throws {
        try await Fixture.with { fixture in
            let response = try await fetch(fixture.port, "/blob.bin", headers: [("Range", "bytes=0-9,100-199,-22")])
            #expect(response.status == 206)
            #expect(response.headers["content-range"] == nil)
            #expect(response.headers["content-length"] == String(response.body.count))
            let boundary = try MultipartParser.boundary(contentType: response.headers["content-type"])
            #expect(boundary.wholeMatch(of: /fixture-[0-9a-f]{16}/) != nil)
            let parts = try MultipartParser.parse(response.body, boundary: boundary)
            #expect(parts.map(\.claimed) == [0..<10, 100..<200, (size - 22)..<size])
            for part in parts {
                #expect(part.bytes == Array(Fixture.blob[part.claimed]))
                #expect(part.total == size)
                #expect(part.contentType == "application/octet-stream")
            }
            let entry = try #require(fixture.server.requests().first)
            #expect(entry.headers["range"] == "bytes=0-9,100-199,-22")
            #expect(entry.status == 206)
            #expect(entry.bodyBytes == response.body.count)
        }
    }

    @Test func theBytesFollowTheRFCExampleExactly() async throws {
        try await Fixture.with { fixture in
            let response = try await fetch(fixture.port, "/a.txt", headers: [("Range", "bytes=0-4,-6")])
            let boundary = try MultipartParser.boundary(contentType: response.headers["content-type"])
            let type = "text/plain; charset=utf-8"
            let expected =
                "--\(boundary)\r\nContent-Type: \(type)\r\nContent-Range: bytes 0-4/15\r\n\r\nhello\r\n"
                + "--\(boundary)\r\nContent-Type: \(type)\r\nContent-Range: bytes 9-14/15\r\n\r\nxture\n\r\n"
                + "--\(boundary)--\r\n"
            #expect(response.text == expected)
        }
    }

    @Test func rangesAreAnsweredInTheOrderAskedAndUnsatisfiableOnesDropped() async throws {
        try await Fixture.with { fixture in
            let response = try await fetch(
                fixture.port, "/blob.bin", headers: [("Range", "bytes=500-599, 99999-,9-3,,0-0,500-509")])
            #expect(response.status == 206)
            #expect(try response.byteParts().map(\.claimed) == [500..<600, 0..<1, 500..<510])
        }
    }

    @Test func oneSatisfiableRangeLeftIsAPlainPart() async throws {
        try await Fixture.with { fixture in
            let response = try await fetch(fixture.port, "/blob.bin", headers: [("Range", "bytes=0-9,99999-")])
            #expect(response.status == 206)
            #expect(response.headers["content-range"] == "bytes 0-9/\(size)")
            #expect(response.body == Array(Fixture.blob[0..<10]))
        }
    }

    @Test func noSatisfiableRangeIs416() async throws {
        try await Fixture.with { fixture in
            let response = try await fetch(fixture.port, "/blob.bin", headers: [("Range", "bytes=20000-,30000-30010,-0")])
            #expect(response.status == 416)
            #expect(response.headers["content-range"] == "bytes */\(size)")
            #expect(response.body.isEmpty)
        }
    }

    @Test func aThousandRangesAreIgnoredAndNineHundredNinetyNineAnswered() async throws {
        try await Fixture.with { fixture in
            func ranges(_ count: Int) -> String { "bytes=" + (0..<count).map { "\($0 * 10)-\($0 * 10 + 1)" }.joined(separator: ",") }
            let over = try await fetch(fixture.port, "/blob.bin", headers: [("Range", ranges(1000))])
            #expect(over.status == 200)
            #expect(over.body.elementsEqual(Fixture.blob))
            let under = try await fetch(fixture.port, "/blob.bin", headers: [("Range", ranges(999))])
            #expect(under.status == 206)
            let parts = try under.byteParts()
            #expect(parts.count == 999)
            #expect(parts.allSatisfy { $0.bytes == Array(Fixture.blob[$0.claimed]) })
        }
    }

    @Test func headAnswersTheMultipartLengthWithoutABody() async throws {
        try await Fixture.with { fixture in
            let range = [("Range", "bytes=0-9,100-199")]
            let get = try await fetch(fixture.port, "/blob.bin", headers: range)
            let head = try await fetch(fixture.port, "/blob.bin", method: "HEAD", headers: range)
            #expect(head.status == 206)
            #expect(head.headers["content-length"] == get.headers["content-length"])
            #expect(head.headers["content-type"]?.hasPrefix("multipart/byteranges; boundary=") == true)
        }
    }

    @Test func aLargeFileStreamsItsParts() async throws {
        // 8 MiB with parts of 3 MiB: each part goes out in 256 KiB chunks.
        let big = (0..<(8 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 12) }
        try await Fixture.with(files: ["big.bin": big]) { fixture in
            let response = try await fetch(
                fixture.port, "/big.bin", headers: [("Range", "bytes=1-3145728,-3145728")])
            let parts = try response.byteParts()
            #expect(parts.map(\.claimed) == [1..<3_145_729, (big.count - 3_145_728)..<big.count])
            #expect(parts.allSatisfy { $0.bytes == Array(big[$0.claimed]) })
        }
    }

    @Test func ifRangeNotMatchingGivesTheWholeFileForSeveralRangesToo() async throws {
        try await Fixture.with { fixture in
            let response = try await fetch(
                fixture.port, "/blob.bin", headers: [("Range", "bytes=0-9,20-29"), ("If-Range", "\"old\"")])
            #expect(response.status == 200)
            #expect(response.body == Fixture.blob)
            #expect(fixture.server.requests().first?.headers["if-range"] == "\"old\"")
        }
    }
}
