import FixtureServer
import Testing

/// `bad_range=`: range answers that break the rules, for the client's tests.
@Suite struct HostileRangeTests {
    private let size = Fixture.blob.count

    @Test func mismatchSendsTheNeighbouringBytes() async throws {
        try await Fixture.with { fixture in
            let response = try await fetch(fixture.port, "/blob.bin?bad_range=mismatch", headers: [("Range", "bytes=100-199,300-399")])
            #expect(response.status == 206)
            #expect(response.headers["content-range"] == "bytes 101-200/\(size)")
            #expect(response.body == Array(Fixture.blob[101..<201]))
            let tail = try await fetch(fixture.port, "/blob.bin?bad_range=mismatch", headers: [("Range", "bytes=-10")])
            #expect(tail.headers["content-range"] == "bytes \(size - 11)-\(size - 2)/\(size)")
            let whole = try await fetch(fixture.port, "/blob.bin?bad_range=mismatch", headers: [("Range", "bytes=0-")])
            #expect(whole.headers["content-range"] == "bytes 0-\(size - 1)/\(size + 1)")
        }
    }

    @Test func overlapAddsAPartOverlappingTheFirst() async throws {
        try await Fixture.with { fixture in
            let response = try await fetch(fixture.port, "/blob.bin?bad_range=overlap", headers: [("Range", "bytes=0-99,200-299")])
            #expect(response.status == 206)
            let parts = try response.byteParts()
            #expect(parts.map(\.claimed) == [0..<100, 200..<300, 50..<150])
            #expect(parts.allSatisfy { $0.bytes == Array(Fixture.blob[$0.claimed]) })
        }
    }

    @Test func garbledNamesABoundaryTheBodyDoesNotUse() async throws {
        try await Fixture.with { fixture in
            let response = try await fetch(fixture.port, "/blob.bin?bad_range=garbled", headers: [("Range", "bytes=0-9")])
            #expect(response.status == 206)
            #expect(response.headers["content-type"] == "multipart/byteranges; boundary=not-the-one-in-the-body")
            #expect(throws: (any Error).self) { try response.byteParts() }
            #expect(String(decoding: response.body, as: UTF8.self).contains("Content-Range: bytes 0-9/\(size)"))
        }
    }

    @Test func pastEndClaimsBytesAfterTheEnd() async throws {
        try await Fixture.with { fixture in
            let single = try await fetch(fixture.port, "/blob.bin?bad_range=past_end", headers: [("Range", "bytes=0-9")])
            #expect(single.status == 206)
            #expect(single.headers["content-range"] == "bytes \(size)-\(size + 99)/\(size)")
            #expect(single.body == [UInt8](repeating: 0xEE, count: 100))

            let several = try await fetch(fixture.port, "/blob.bin?bad_range=past_end", headers: [("Range", "bytes=0-9,20-29")])
            let parts = try several.byteParts()
            #expect(parts.map(\.claimed) == [0..<10, 20..<30, size..<(size + 100)])
            #expect(parts.last?.total == size)
        }
    }

    @Test(arguments: ["bytes=0-9", "bytes=0-9,20-29"])
    func endlessGoesOnUntilTheClientLeaves(range: String) async throws {
        try await Fixture.with { fixture in
            let response = try await fetch(
                fixture.port, "/blob.bin?bad_range=endless", headers: [("Range", range)], maxBody: 300_000)
            #expect(response.status == 206)
            #expect(response.headers["content-length"] == nil)
            #expect(response.end == .stopped)
            if range.contains(",") {
                let boundary = try MultipartParser.boundary(contentType: response.headers["content-type"])
                let head = "--\(boundary)\r\nContent-Type: application/octet-stream\r\nContent-Range: bytes 0-9/\(size)\r\n\r\n"
                #expect(response.body.starts(with: Array(head.utf8)))
            } else {
                #expect(response.headers["content-range"] == "bytes 0-9/\(size)")
            }
            // Logged only once the client has gone; after that nothing more is sent.
            let entry = try #require(await fixture.server.waitForRequests(count: 1).first)
            #expect(entry.status == 206)
            #expect(entry.bodyBytes >= 300_000)
            _ = try await fetch(fixture.port, "/a.txt")
            #expect(fixture.server.requests().first?.bodyBytes == entry.bodyBytes)
        }
    }

    @Test func withoutARangeTheAnswerIsPlain() async throws {
        try await Fixture.with { fixture in
            let response = try await fetch(fixture.port, "/blob.bin?bad_range=endless")
            #expect(response.status == 200)
            #expect(response.body == Fixture.blob)
        }
    }
}
