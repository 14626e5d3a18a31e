import FixtureServer
import Foundation
import Testing

@Suite struct ValidatorTests {
    /// ETag and Last-Modified of a.txt, as a first GET reports them.
    private func validators(_ fixture: Fixture) async throws -> (etag: String, lastModified: String) {
        let response = try await fetch(fixture.port, "/a.txt")
        return (try #require(response.headers["etag"]), try #require(response.headers["last-modified"]))
    }

    @Test func ifNoneMatchWithTheETagIs304WithoutABody() async throws {
        try await Fixture.with { fixture in
            let (etag, _) = try await validators(fixture)
            for condition in [etag, "\"other\", \(etag)", "W/\(etag)", "*"] {
                let response = try await fetch(fixture.port, "/a.txt", headers: [("If-None-Match", condition)])
                #expect(response.status == 304, "\(condition)")
                #expect(response.body.isEmpty)
                #expect(response.headers["etag"] == etag)
                #expect(response.headers["content-length"] == nil)
            }
            #expect(fixture.server.requests().map(\.status) == [200, 304, 304, 304, 304])
            #expect(fixture.server.requests().last?.headers["if-none-match"] == "*")
        }
    }

    @Test func ifNoneMatchWithAnotherETagIs200() async throws {
        try await Fixture.with { fixture in
            let response = try await fetch(fixture.port, "/a.txt", headers: [("If-None-Match", "\"nope\"")])
            #expect(response.status == 200)
            #expect(response.body == Fixture.text)
        }
    }

    @Test func ifModifiedSinceIs304UnlessModifiedAfter() async throws {
        try await Fixture.with { fixture in
            let (_, lastModified) = try await validators(fixture)
            let same = try await fetch(fixture.port, "/a.txt", headers: [("If-Modified-Since", lastModified)])
            #expect(same.status == 304)
            #expect(same.body.isEmpty)
            let old = try await fetch(
                fixture.port, "/a.txt", headers: [("If-Modified-Since", "Mon, 01 Jan 2001 00:00:00 GMT")])
            #expect(old.status == 200)
            #expect(old.body == Fixture.text)
        }
    }

    @Test func ifNoneMatchTakesPrecedenceOverIfModifiedSince() async throws {
        try await Fixture.with { fixture in
            let (_, lastModified) = try await validators(fixture)
            let response = try await fetch(
                fixture.port, "/a.txt",
                headers: [("If-None-Match", "\"stale\""), ("If-Modified-Since", lastModified)])
            #expect(response.status == 200)
        }
    }

    @Test func headGets304Too() async throws {
        try await Fixture.with { fixture in
            let (etag, _) = try await validators(fixture)
            let response = try await fetch(fixture.port, "/a.txt", method: "HEAD", headers: [("If-None-Match", etag)])
            #expect(response.status == 304)
        }
    }

    @Test func theETagChangesWhenTheFileChanges() async throws {
        try await Fixture.with { fixture in
            let (before, _) = try await validators(fixture)
            try Data("rewritten, longer\n".utf8).write(to: fixture.root.appendingPathComponent("a.txt"))
            let response = try await fetch(fixture.port, "/a.txt", headers: [("If-None-Match", before)])
            #expect(response.status == 200)
            #expect(response.text == "rewritten, longer\n")
            #expect(response.headers["etag"] != before)
        }
    }
}
