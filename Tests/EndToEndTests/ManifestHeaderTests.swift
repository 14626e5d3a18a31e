import FixtureServer
import Foundation
import Testing

/// Issue 11, `--header`: sent with the manifest's requests to the manifest's
/// own origin only, never with an asset request, never in a log line or an error.
@Suite struct ManifestHeaderTests {
    static let apiKey = "s3cret-api-key-4f9a"
    static let token = "tok-bearer-77c2e1"
    static let arguments = ["--header", "X-Api-Key: \(apiKey)", "--header", "Authorization: Bearer \(token)", "--log-level", "trace"]

    static func leaks(_ text: String) -> Bool {
        text.contains(apiKey) || text.contains(token)
    }

    @Test func manifestRequestCarriesTheHeadersAndNoAssetRequestDoes() async throws {
        let scratch = try Scratch()
        let names = try writeStyleSheets(3, in: scratch.path("www"))
        // Assets on the manifest's own host: the rule is per request, not per host.
        let server = try await FixtureServer.start(root: scratch.path("www"))
        try Data(try manifestJSON(htmlMessages(names, server: server.url)).utf8)
            .write(to: URL(fileURLWithPath: scratch.path("www/manifest.json")))

        let result = try await CommandRunner.prefetch(
            ["run", server.url("manifest.json"), "--cache-dir", scratch.path("cache"), "--json"] + Self.arguments)
        let requests = server.requests()
        try await server.stop()

        #expect(result.status == 0, "\(result.stderr)")
        let manifestRequests = requests.filter { $0.path == "/manifest.json" }
        #expect(manifestRequests.count == 1)
        #expect(manifestRequests.first?.headers["x-api-key"] == Self.apiKey)
        #expect(manifestRequests.first?.headers["authorization"] == "Bearer \(Self.token)")
        let assetRequests = requests.filter { $0.path != "/manifest.json" }
        #expect(assetRequests.count == 3)
        for request in assetRequests {
            #expect(request.headers["x-api-key"] == nil, "\(request.target) carried X-Api-Key")
            #expect(request.headers["authorization"] == nil, "\(request.target) carried Authorization")
        }
        #expect(result.stderr.contains("trace") || result.stderr.contains("debug"), "no log lines to check: \(result.stderr)")
        #expect(result.stderr.contains("--header X-Api-Key, Authorization (values not logged)"), "\(result.stderr)")
        #expect(!Self.leaks(result.stderr))
        #expect(!Self.leaks(result.stdoutText))
    }

    @Test func aRefusedManifestRequestLogsNoValue() async throws {
        let scratch = try Scratch()
        let server = try await FixtureServer.start(root: scratch.url.path)
        let result = try await CommandRunner.prefetch(
            ["run", server.url("manifest.json?status=401"), "--cache-dir", scratch.path("cache")] + Self.arguments)
        let requests = server.requests()
        try await server.stop()
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.contains("HTTP 401"))
        #expect(requests.first?.headers["x-api-key"] == Self.apiKey)
        #expect(!Self.leaks(result.stderr))
    }

    @Test func headersFollowRedirectsOnTheManifestsOriginOnly() async throws {
        let scratch = try Scratch()
        let names = try writeStyleSheets(1, in: scratch.path("www"))
        let home = try await FixtureServer.start(root: scratch.path("www"))
        let elsewhere = try await FixtureServer.start(root: scratch.path("www"))
        try Data(try manifestJSON(htmlMessages(names, server: elsewhere.url)).utf8)
            .write(to: URL(fileURLWithPath: scratch.path("www/manifest.json")))
        let away = elsewhere.url("manifest.json").addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let nearby = home.url("manifest.json").addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        // A redirect on the manifest's origin keeps the headers; one to another origin drops them.
        let sameOrigin = try await CommandRunner.prefetch(
            ["run", home.url("start.json?redirect=\(nearby)"), "--cache-dir", scratch.path("cache1")] + Self.arguments)
        let crossOrigin = try await CommandRunner.prefetch(
            ["run", home.url("start.json?redirect=\(away)"), "--cache-dir", scratch.path("cache2")] + Self.arguments)
        let homeRequests = home.requests()
        let awayRequests = elsewhere.requests()
        try await home.stop()
        try await elsewhere.stop()

        #expect(sameOrigin.status == 0, "\(sameOrigin.stderr)")
        #expect(crossOrigin.status == 0, "\(crossOrigin.stderr)")
        #expect(homeRequests.count == 3)
        for request in homeRequests {
            #expect(request.headers["x-api-key"] == Self.apiKey, "\(request.target) lacked the header on the manifest's origin")
        }
        #expect(!awayRequests.isEmpty)
        for request in awayRequests {
            #expect(request.headers["x-api-key"] == nil, "\(request.target) on another origin carried X-Api-Key")
            #expect(request.headers["authorization"] == nil, "\(request.target) on another origin carried Authorization")
        }
        #expect(crossOrigin.stderr.contains("the --header values are not sent there"), "\(crossOrigin.stderr)")
        #expect(!Self.leaks(sameOrigin.stderr + crossOrigin.stderr))
    }

    @Test func aMalformedHeaderIsRefusedNamingItButNotItsValue() async throws {
        let scratch = try Scratch()
        let refusals: [(argument: String, message: String)] = [
            ("X-Api-Key: \(Self.apiKey)\r\nX-Injected: 1", "--header 'X-Api-Key': its value holds a CR, LF or NUL"),
            ("Bearer \(Self.token)", "a --header has no ':' after its name"),
            ("X Api: \(Self.token)", "a --header's name (before ':') is not a header name"),
            ("X-Empty:", "--header 'X-Empty': its value is empty"),
        ]
        for refusal in refusals {
            let result = try await CommandRunner.prefetch(
                ["run", "http://127.0.0.1:9/manifest.json", "--header", refusal.argument, "--cache-dir", scratch.path("cache")])
            #expect(result.status == 2, "\(result.stderr)")
            #expect(result.stderr.contains(refusal.message), "\(result.stderr)")
            #expect(!Self.leaks(result.stderr), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: scratch.path("cache")))
        }
    }
}
