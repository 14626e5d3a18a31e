import FixtureServer
import Foundation
import Testing

@Suite struct FileServingTests {
    @Test func getServesTheFileWithItsHeaders() async throws {
        try await Fixture.with { fixture in
            let response = try await fetch(fixture.port, "/blob.bin")
            #expect(response.status == 200)
            #expect(response.body == Fixture.blob)
            #expect(response.headers["content-length"] == "20000")
            #expect(response.headers["content-type"] == "application/octet-stream")
            #expect(response.headers["accept-ranges"] == "bytes")
            let etag = try #require(response.headers["etag"])
            #expect(etag.hasPrefix("\"4e20-") && etag.hasSuffix("\""))
            let lastModified = try #require(response.headers["last-modified"])
            #expect(lastModified.hasSuffix(" GMT") && lastModified.count == 29)
        }
    }

    @Test(arguments: [
        ("a.txt", "text/plain; charset=utf-8"), ("img.png", "image/png"),
        ("page.html", "text/html; charset=utf-8"), ("blob.bin", "application/octet-stream"),
    ])
    func contentTypeFollowsTheExtension(file: String, type: String) async throws {
        try await Fixture.with { fixture in
            let response = try await fetch(fixture.port, "/" + file)
            #expect(response.headers["content-type"] == type)
        }
    }

    @Test func headSendsTheHeadersOfGetWithoutABody() async throws {
        try await Fixture.with { fixture in
            let get = try await fetch(fixture.port, "/a.txt")
            let head = try await onThread {
                let connection = try RawConnection(port: fixture.port)
                try connection.sendRequest("HEAD", "/a.txt")
                let head = try connection.readResponse(method: "HEAD")
                // No stray body bytes: the next response on the connection parses.
                try connection.sendRequest("GET", "/a.txt")
                #expect(try connection.readResponse().body == Fixture.text)
                return head
            }
            #expect(head.status == 200)
            for name in ["content-length", "content-type", "etag", "last-modified", "accept-ranges"] {
                #expect(head.headers[name] == get.headers[name], "\(name)")
            }
            #expect(fixture.server.requests().map(\.bodyBytes) == [Fixture.text.count, 0, Fixture.text.count])
        }
    }

    @Test func keepAliveServesSeveralRequestsOnOneConnection() async throws {
        try await Fixture.with { fixture in
            let bodies = try await onThread {
                let connection = try RawConnection(port: fixture.port)
                var bodies: [[UInt8]] = []
                for target in ["/a.txt", "/blob.bin", "/a.txt?status=500", "/a.txt"] {
                    try connection.sendRequest("GET", target)
                    bodies.append(try connection.readResponse().body)
                }
                return bodies
            }
            #expect(bodies[0] == Fixture.text && bodies[1] == Fixture.blob && bodies[3] == Fixture.text)
            #expect(fixture.server.requests().map(\.status) == [200, 200, 500, 200])
        }
    }

    @Test func connectionCloseIsHonoured() async throws {
        try await Fixture.with { fixture in
            let (response, end) = try await onThread {
                let connection = try RawConnection(port: fixture.port)
                try connection.sendRequest("GET", "/a.txt", headers: [("Connection", "close")])
                return (try connection.readResponse(), connection.readUntilEnd())
            }
            #expect(response.headers["connection"] == "close")
            #expect(end == .closed)
        }
    }

    @Test func streamsALargeFileIntact() async throws {
        let large = (0..<(5 << 20)).map { UInt8(truncatingIfNeeded: $0 ^ ($0 >> 11)) }
        try await Fixture.with(files: ["large.bin": large]) { fixture in
            let response = try await fetch(fixture.port, "/large.bin")
            #expect(response.body.count == large.count)
            #expect(response.body == large)
            #expect(fixture.server.requests().first?.bodyBytes == large.count)
        }
    }

    @Test(arguments: ["/../secret.txt", "/%2e%2e/secret.txt", "/dir/../../secret.txt", "/sub", "/sub/", "/", "/missing.txt"])
    func outsideTheRootDirectoriesAndMissingFilesAre404(target: String) async throws {
        try await Fixture.with { fixture in
            let response = try await fetch(fixture.port, target)
            #expect(response.status == 404)
            #expect(!response.text.contains("secret"))
        }
    }

    @Test func otherMethodsAre405() async throws {
        try await Fixture.with { fixture in
            let response = try await fetch(fixture.port, "/a.txt", method: "DELETE")
            #expect(response.status == 405)
            #expect(response.headers["allow"] == "GET, HEAD")
        }
    }

    @Test func theLogRecordsEachRequest() async throws {
        try await Fixture.with { fixture in
            let response = try await fetch(
                fixture.port, "/dir/a%20b.txt?v=1&cache_control=no-cache", headers: [("X-Probe", "yes")])
            #expect(response.text == "spaced\n")
            let log = fixture.server.requests()
            #expect(log.count == 1)
            let entry = try #require(log.first)
            #expect(entry.method == "GET")
            #expect(entry.path == "/dir/a b.txt")
            #expect(entry.query == "v=1&cache_control=no-cache")
            #expect(entry.target == "/dir/a%20b.txt?v=1&cache_control=no-cache")
            #expect(entry.headers["x-probe"] == "yes")
            #expect(entry.headers["host"] == "127.0.0.1")
            #expect(entry.status == 200)
            #expect(entry.bodyBytes == 7)

            fixture.server.resetLog()
            #expect(fixture.server.requests().isEmpty)
            #expect(fixture.server.peakInFlight == 0)
        }
    }

    @Test func theLogIsInOrderOfArrivalNotOfCompletion() async throws {
        try await Fixture.with { fixture in
            let port = fixture.port
            // Once its head is read, the stalled request has surely arrived first.
            let first = try await onThread {
                let connection = try RawConnection(port: port)
                try connection.sendRequest("GET", "/a.txt?stall_after=0")
                _ = try connection.readResponse(maxBody: 0)
                return connection
            }
            _ = try await fetch(port, "/blob.bin")
            #expect(fixture.server.requests().map(\.path) == ["/blob.bin"])
            _ = consume first
            let log = await fixture.server.waitForRequests(count: 2)
            #expect(log.map(\.target) == ["/a.txt?stall_after=0", "/blob.bin"])
        }
    }
}
