import FixtureServer
import Foundation
import Testing

@Suite struct StartTests {
    @Test func refusesNonLoopbackHosts() async throws {
        for host in ["0.0.0.0", "192.168.1.10", "example.com", "::"] {
            await #expect(throws: FixtureServerError.nonLoopbackHost(host)) {
                try await FixtureServer.start(root: NSTemporaryDirectory(), host: host)
            }
        }
    }

    @Test func refusesARootThatIsNotADirectory() async throws {
        let missing = NSTemporaryDirectory() + "/no-such-folder-\(UUID().uuidString)"
        await #expect(throws: FixtureServerError.rootNotADirectory(missing)) {
            try await FixtureServer.start(root: missing)
        }
    }

    @Test func refusesACertificateItCannotUse() async throws {
        let folder = NSTemporaryDirectory()
        let tls = FixtureTLS(certificateChainPath: folder + "/no-such-cert-\(UUID().uuidString).pem", privateKeyPath: folder + "/k.pem")
        do {
            let server = try await FixtureServer.start(root: folder, tls: tls)
            try await server.stop()
            Issue.record("started HTTPS without a certificate")
        } catch let error as FixtureServerError {
            guard case .tls(let message) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(message.contains(tls.certificateChainPath))
        }
    }

    @Test func logsWhenEachRequestArrivedAndItsResponseEnded() async throws {
        try await Fixture.with { fixture in
            let before = Date().timeIntervalSince1970
            let response = try await onThread {
                let connection = try RawConnection(port: fixture.port)
                try connection.sendRequest("GET", "/blob.bin")
                return try connection.readResponse(maxBody: 100_000)
            }
            #expect(response.body.count == Fixture.blob.count)
            let log = await fixture.server.waitForRequests(count: 1)
            let entry = try #require(log.first)
            #expect(entry.startedAt >= before - 1)
            #expect(entry.endedAt >= entry.startedAt)
        }
    }

    @Test func reportsItsURLs() async throws {
        try await Fixture.with { fixture in
            let server = fixture.server
            #expect(server.port > 0)
            #expect(server.baseURL == "http://127.0.0.1:\(server.port)")
            #expect(server.url("a.txt?x=1") == "http://127.0.0.1:\(server.port)/a.txt?x=1")
        }
    }

    @Test func localhostBindsToIPv4Loopback() async throws {
        let server = try await FixtureServer.start(root: NSTemporaryDirectory(), host: "localhost")
        #expect(server.baseURL == "http://127.0.0.1:\(server.port)")
        try await server.stop()
    }

    @Test func stopClosesOpenConnections() async throws {
        try await Fixture.with { fixture in
            let connection = try await onThread {
                let connection = try RawConnection(port: fixture.port)
                try connection.sendRequest("GET", "/blob.bin?stall_after=10")
                return connection
            }
            let stalled = try await onThread { try connection.readResponse(maxBody: 10) }
            #expect(stalled.body.count == 10)
            try await fixture.server.stop()
            let end = try await onThread { connection.readUntilEnd() }
            #expect(end == .closed)
            let log = await fixture.server.waitForRequests(count: 1)
            #expect(log.map(\.bodyBytes) == [10])
        }
    }
}
