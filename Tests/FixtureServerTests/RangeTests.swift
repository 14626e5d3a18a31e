import FixtureServer
import Testing

@Suite struct RangeTests {
    private let size = Fixture.blob.count

    @Test func aClosedRange() async throws {
        try await Fixture.with { fixture in
            let response = try await fetch(fixture.port, "/blob.bin", headers: [("Range", "bytes=100-199")])
            #expect(response.status == 206)
            #expect(response.headers["content-range"] == "bytes 100-199/\(size)")
            #expect(response.headers["content-length"] == "100")
            #expect(response.body == Array(Fixture.blob[100..<200]))
            #expect(fixture.server.requests().first?.bodyBytes == 100)
        }
    }

    @Test func anOpenRange() async throws {
        try await Fixture.with { fixture in
            let response = try await fetch(fixture.port, "/blob.bin", headers: [("Range", "bytes=19000-")])
            #expect(response.status == 206)
            #expect(response.headers["content-range"] == "bytes 19000-\(size - 1)/\(size)")
            #expect(response.body == Array(Fixture.blob[19000...]))
        }
    }

    @Test func aSuffixRange() async throws {
        try await Fixture.with { fixture in
            let response = try await fetch(fixture.port, "/blob.bin", headers: [("Range", "bytes=-5")])
            #expect(response.status == 206)
            #expect(response.headers["content-range"] == "bytes \(size - 5)-\(size - 1)/\(size)")
            #expect(response.body == Array(Fixture.blob.suffix(5)))
        }
    }

    @Test func anEndPastTheFileIsClamped() async throws {
        try await Fixture.with { fixture in
            let response = try await fetch(fixture.port, "/a.txt", headers: [("Range", "bytes=7-999")])
            #expect(response.status == 206)
            #expect(response.body == Array(Fixture.text[7...]))
        }
    }

    @Test(arguments: ["bytes=20000-", "bytes=99999-100000", "bytes=-0"])
    func anUnsatisfiableRangeIs416(range: String) async throws {
        try await Fixture.with { fixture in
            let response = try await fetch(fixture.port, "/blob.bin", headers: [("Range", range)])
            #expect(response.status == 416)
            #expect(response.headers["content-range"] == "bytes */\(size)")
            #expect(response.body.isEmpty)
        }
    }

    @Test(arguments: ["items=0-1", "bytes=9-3", "bytes=0-1,x-5", "bytes=0-1,5"])
    func anUnsupportedRangeIsIgnored(range: String) async throws {
        try await Fixture.with { fixture in
            let response = try await fetch(fixture.port, "/blob.bin", headers: [("Range", range)])
            #expect(response.status == 200)
            #expect(response.body == Fixture.blob)
        }
    }

    @Test func ifRangeMatchingTheETagOrDateGivesThePart() async throws {
        try await Fixture.with { fixture in
            let full = try await fetch(fixture.port, "/blob.bin")
            for condition in [full.headers["etag"]!, full.headers["last-modified"]!] {
                let response = try await fetch(
                    fixture.port, "/blob.bin", headers: [("Range", "bytes=0-9"), ("If-Range", condition)])
                #expect(response.status == 206, "\(condition)")
                #expect(response.body == Array(Fixture.blob[0..<10]))
            }
        }
    }

    @Test(arguments: ["\"different\"", "Mon, 01 Jan 2001 00:00:00 GMT"])
    func ifRangeNotMatchingGivesTheWholeFile(condition: String) async throws {
        try await Fixture.with { fixture in
            let response = try await fetch(
                fixture.port, "/blob.bin", headers: [("Range", "bytes=0-9"), ("If-Range", condition)])
            #expect(response.status == 200)
            #expect(response.body == Fixture.blob)
            #expect(response.headers["content-range"] == nil)
        }
    }

    @Test func ifRangeWithAWeakETagNeverMatches() async throws {
        try await Fixture.with { fixture in
            let etag = try await fetch(fixture.port, "/blob.bin").headers["etag"]!
            let response = try await fetch(
                fixture.port, "/blob.bin", headers: [("Range", "bytes=0-9"), ("If-Range", "W/" + etag)])
            #expect(response.status == 200)
        }
    }

    @Test func headWithARangeAnswers206WithoutABody() async throws {
        try await Fixture.with { fixture in
            let response = try await fetch(
                fixture.port, "/blob.bin", method: "HEAD", headers: [("Range", "bytes=0-9")])
            #expect(response.status == 206)
            #expect(response.headers["content-length"] == "10")
        }
    }
}
