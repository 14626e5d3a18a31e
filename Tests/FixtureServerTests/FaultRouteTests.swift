import FixtureServer
import Foundation
import Testing

@Suite struct FaultRouteTests {
    @Test func statusReplacesTheFileWithAPage() async throws {
        try await Fixture.with { fixture in
            let response = try await fetch(fixture.port, "/a.txt?status=418")
            #expect(response.status == 418)
            #expect(response.headers["content-type"] == "text/html; charset=utf-8")
            #expect(response.text.contains("418"))
            // No file is needed behind a fault status.
            #expect(try await fetch(fixture.port, "/nothing-here?status=500").status == 500)
        }
    }

    @Test func badFaultValuesAre400() async throws {
        try await Fixture.with { fixture in
            let response = try await fetch(fixture.port, "/a.txt?delay_ms=soon")
            #expect(response.status == 400)
            #expect(response.text.contains("delay_ms"))
            #expect(try await fetch(fixture.port, "/a.txt?unknown=1&v=2").status == 200)
        }
    }

    @Test func onlyKeepsTheFaultsToPathsWithTheSuffix() async throws {
        try await Fixture.with { fixture in
            let plain = try await fetch(fixture.port, "/a.txt?status=418&only=.sig")
            #expect(plain.status == 200)
            #expect(plain.body == Fixture.text)
            #expect(try await fetch(fixture.port, "/a.txt.sig?status=418&only=.sig").status == 418)
            #expect(try await fetch(fixture.port, "/a.txt?status=418&only=.txt").status == 418)
        }
    }

    @Test func delayHoldsTheResponseHead() async throws {
        try await Fixture.with { fixture in
            let start = ContinuousClock.now
            let response = try await fetch(fixture.port, "/a.txt?delay_ms=300")
            #expect(ContinuousClock.now - start >= .milliseconds(300))
            #expect(response.body == Fixture.text)
        }
    }

    @Test func concurrentDelayedRequestsAreInFlightTogether() async throws {
        try await Fixture.with { fixture in
            let port = fixture.port
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<4 {
                    group.addTask { try await fetch(port, "/a.txt?delay_ms=500&n=\(index)").status }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses == [200, 200, 200, 200])
            #expect(fixture.server.peakInFlight > 1)
            #expect(fixture.server.requests().count == 4)
        }
    }

    @Test func truncateSendsTheFullLengthThenCutsTheBody() async throws {
        try await Fixture.with { fixture in
            let response = try await fetch(fixture.port, "/blob.bin?truncate=1000")
            #expect(response.status == 200)
            #expect(response.headers["content-length"] == "20000")
            #expect(response.body == Array(Fixture.blob[..<1000]))
            #expect(response.end == .closed)
            #expect(fixture.server.requests().first?.bodyBytes == 1000)
        }
    }

    @Test func truncateZeroSendsOnlyTheHead() async throws {
        try await Fixture.with { fixture in
            let response = try await fetch(fixture.port, "/blob.bin?truncate=0")
            #expect(response.status == 200)
            #expect(response.body.isEmpty)
            #expect(response.end == .closed)
        }
    }

    @Test func resetClosesWithoutAResponse() async throws {
        try await Fixture.with { fixture in
            await #expect(throws: NoResponse(end: .reset)) {
                try await fetch(fixture.port, "/a.txt?reset=1")
            }
            let entry = try #require(fixture.server.requests().first)
            #expect(entry.status == 0)
            #expect(entry.bodyBytes == 0)
        }
    }

    @Test func failFirstFailsTheFirstRequestsToThatTarget() async throws {
        try await Fixture.with { fixture in
            let target = "/a.txt?fail_first=2"
            var statuses: [Int] = []
            for _ in 0..<4 { statuses.append(try await fetch(fixture.port, target).status) }
            #expect(statuses == [503, 503, 200, 200])
            // Another query is another target, with its own count.
            #expect(try await fetch(fixture.port, target + "&fail_status=429").status == 429)
            #expect(try await fetch(fixture.port, target + "&fail_status=429").status == 429)
            #expect(try await fetch(fixture.port, target + "&fail_status=429").status == 200)

            fixture.server.resetLog()
            #expect(try await fetch(fixture.port, target).status == 503)
        }
    }

    @Test func cacheHeadersAreAddedDecoded() async throws {
        try await Fixture.with { fixture in
            let expires = "Thu, 01 Jan 2037 00:00:00 GMT"
            let response = try await fetch(
                fixture.port,
                "/a.txt?cache_control=max-age%3D60%2C%20public&expires=\(percentEncoded(expires))&retry_after=120")
            #expect(response.status == 200)
            #expect(response.headers["cache-control"] == "max-age=60, public")
            #expect(response.headers["expires"] == expires)
            #expect(response.headers["retry-after"] == "120")
        }
    }

    @Test func cacheHeadersComeWith304s() async throws {
        try await Fixture.with { fixture in
            let target = "/a.txt?cache_control=no-cache"
            let etag = try await fetch(fixture.port, target).headers["etag"]!
            let response = try await fetch(fixture.port, target, headers: [("If-None-Match", etag)])
            #expect(response.status == 304)
            #expect(response.headers["cache-control"] == "no-cache")
        }
    }

    @Test func redirectSendsA302ToTheDecodedURL() async throws {
        try await Fixture.with { fixture in
            let destination = fixture.server.url("blob.bin?x=1&y=2")
            let response = try await fetch(fixture.port, "/a.txt?redirect=\(percentEncoded(destination))")
            #expect(response.status == 302)
            #expect(response.headers["location"] == destination)
        }
    }

    @Test func redirectLoopPointsAtItself() async throws {
        try await Fixture.with { fixture in
            let target = "/a.txt?redirect_loop=1&v=3"
            for _ in 0..<3 {
                let response = try await fetch(fixture.port, target)
                #expect(response.status == 302)
                #expect(response.headers["location"] == target)
            }
        }
    }

    @Test func chunkedSendsTheBodyWithoutALength() async throws {
        try await Fixture.with { fixture in
            let response = try await fetch(fixture.port, "/blob.bin?chunked=1")
            #expect(response.status == 200)
            #expect(response.headers["transfer-encoding"] == "chunked")
            #expect(response.headers["content-length"] == nil)
            #expect(response.body == Fixture.blob)
            #expect(response.end == .complete)
            #expect(fixture.server.requests().first?.bodyBytes == Fixture.blob.count)
        }
    }

    @Test func endlessGoesOnUntilTheClientLeaves() async throws {
        try await Fixture.with { fixture in
            let response = try await fetch(fixture.port, "/anything?endless=1", maxBody: 300_000)
            #expect(response.status == 200)
            #expect(response.headers["transfer-encoding"] == "chunked")
            #expect(response.end == .stopped)
            #expect(response.body.count >= 300_000 && response.body.allSatisfy { $0 == 0 })
            let entry = try #require(await fixture.server.waitForRequests(count: 1).first)
            #expect(entry.status == 200)
            #expect(entry.bodyBytes >= 300_000)
        }
    }

    @Test func stallAfterSendsSomeBytesThenNothing() async throws {
        try await Fixture.with { fixture in
            let response = try await fetch(fixture.port, "/blob.bin?stall_after=500", timeout: 2)
            #expect(response.headers["content-length"] == "20000")
            #expect(response.body == Array(Fixture.blob[..<500]))
            #expect(response.end == .timedOut)
            // The client has gone; only now is the request over.
            let entry = try #require(await fixture.server.waitForRequests(count: 1).first)
            #expect(entry.status == 200)
            #expect(entry.bodyBytes == 500)
        }
    }

    @Test func rateSpreadsTheBodyOverTime() async throws {
        try await Fixture.with { fixture in
            let start = ContinuousClock.now
            let response = try await fetch(fixture.port, "/blob.bin?rate=40000")
            let elapsed = ContinuousClock.now - start
            #expect(response.body == Fixture.blob)
            // 20000 bytes at 40000 B/s: the last step is due at 0.475 s.
            #expect(elapsed >= .milliseconds(450))
        }
    }

    @Test func faultsCombine() async throws {
        try await Fixture.with { fixture in
            let start = ContinuousClock.now
            let response = try await fetch(
                fixture.port, "/blob.bin?delay_ms=200&chunked=1&truncate=3000&cache_control=no-store")
            #expect(ContinuousClock.now - start >= .milliseconds(200))
            #expect(response.headers["transfer-encoding"] == "chunked")
            #expect(response.headers["cache-control"] == "no-store")
            #expect(response.body == Array(Fixture.blob[..<3000]))
            #expect(response.end == .closed)
        }
    }
}

private func percentEncoded(_ text: String) -> String {
    text.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
}
