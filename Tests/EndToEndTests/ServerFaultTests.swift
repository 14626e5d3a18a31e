import FixtureServer
import Foundation
import Testing

/// Issue 4, point 3, through the real binary: every hostile server behaviour in
/// one run, each message judged alone, and the retries visible in the server's
/// log — transient failures (408, 429, 5xx, resets, short bodies, stalls) are
/// retried, permanent ones (other 4xx, size cap, redirects, schemes) never.
@Suite struct ServerFaultTests {
    struct Case {
        var id: String
        var path: String
        /// nil: ready.
        var kind: String?
        /// GETs the server sees for this exact target (a `HEAD` there is the
        /// link watch's probe, docs/limits.md#when-the-link-is-down, not a retry).
        var requests: Int
        var attempts: Int
        /// A host name of its own for the server, so that no idle connection to
        /// it is in libcurl's pool (on a reused connection that dies before any
        /// byte, libcurl itself retries on another, which the log would count
        /// too), or so that giving the host up touches no other case.
        var host: String?

        func url(_ server: FixtureServer) -> String {
            let url = server.url(path)
            guard let host else { return url }
            return url.replacingOccurrences(of: "//127.0.0.1:", with: "//\(host):")
        }
    }

    static let retries = 3
    static let maxRedirects = 3

    static let cases: [Case] = [
        Case(id: "flaky-503", path: "assets/img/rgb.png?fail_first=2&fail_status=503", kind: nil, requests: 3, attempts: 3),
        Case(id: "flaky-408", path: "assets/img/rgba.png?fail_first=1&fail_status=408", kind: nil, requests: 2, attempts: 2),
        Case(id: "throttled-429", path: "assets/img/gray.png?fail_first=1&fail_status=429&retry_after=1",
             kind: nil, requests: 2, attempts: 2),
        Case(id: "retry-after-too-long", path: "assets/img/rgb.png?status=503&retry_after=120",
             kind: "http_status", requests: 1, attempts: 1),
        Case(id: "always-500", path: "assets/img/rgb.png?status=500", kind: "http_status", requests: retries + 1, attempts: retries + 1),
        Case(id: "not-found", path: "assets/img/missing.png", kind: "http_status", requests: 1, attempts: 1),
        Case(id: "forbidden", path: "assets/img/rgb.png?status=403", kind: "http_status", requests: 1, attempts: 1),
        Case(id: "gone", path: "assets/img/rgb.png?status=410", kind: "http_status", requests: 1, attempts: 1),
        Case(id: "reset", path: "assets/img/rgb.png?reset=1", kind: "network", requests: retries + 1, attempts: retries + 1,
             host: "localhost"),
        Case(id: "short-body", path: "assets/img/rgb.png?truncate=100", kind: "network", requests: retries + 1, attempts: retries + 1),
        // The second timeout gives its host up for the run: no third request.
        // 127.1 is 127.0.0.1 to the resolver, and another host to the run.
        Case(id: "stalled", path: "assets/img/rgb.png?stall_after=100", kind: "timeout", requests: 2, attempts: 2, host: "127.1"),
        Case(id: "endless-chunked", path: "assets/img/rgb.png?chunked=1&endless=1", kind: "too_large", requests: 1, attempts: 1),
        Case(id: "declared-too-large", path: "hostile/img/ztxt-bomb.png", kind: "too_large", requests: 1, attempts: 1),
        Case(id: "redirect-loop", path: "assets/img/rgb.png?redirect_loop=1", kind: "redirects",
             requests: maxRedirects + 1, attempts: 1),
        Case(id: "redirect-ftp", path: "assets/img/rgb.png?redirect=ftp%3A%2F%2F127.0.0.1%2Frgb.png",
             kind: "unsupported_scheme", requests: 1, attempts: 1),
        Case(id: "redirect-file", path: "assets/img/rgb.png?redirect=file%3A%2F%2F%2Fetc%2Fpasswd",
             kind: "unsupported_scheme", requests: 1, attempts: 1),
        Case(id: "good", path: "assets/img/palette.png", kind: nil, requests: 1, attempts: 1),
    ]

    @Test func everyServerFaultEndsAsDesignedWithTheRetriesInTheLog() async throws {
        let scratch = try Scratch()
        let server = try await FixtureServer.start(root: Package.root.appendingPathComponent("fixtures").path)
        // A stall limit of 3 s, not 1: on a loaded machine a server can be a
        // second late with an answer, and two such timeouts would give its host up.
        let triggers = Self.cases.map { inapp($0.id, ["type": "MODAL", "image_url": $0.url(server)]) }
        let manifest = try scratch.write("manifest.json", try manifestJSON(triggers))
        let result = try await CommandRunner.prefetch([
            "run", manifest, "--cache-dir", scratch.path("cache"), "--json",
            "--retries", "\(Self.retries)", "--max-redirs", "\(Self.maxRedirects)", "--stall-timeout", "3",
            "--max-asset-size", "256K", "--max-time", "30", "--connect-timeout", "5",
        ])
        let log = server.requests()
        try await server.stop()

        #expect(result.status == 1, "\(result.stderr)")
        let report = try result.report()
        for item in Self.cases {
            let url = item.url(server)
            let message = try #require(report.message(item.id), "\(item.id)")
            let asset = try #require(report.asset(url), "\(item.id)")
            if let kind = item.kind {
                #expect(message.verdict == "discarded:asset_download_failed", "\(item.id)")
                #expect(asset.error?.kind == kind, "\(item.id): \(asset.error?.message ?? "no error")")
            } else {
                #expect(message.status == "ready", "\(item.id): \(message.detail ?? "")")
            }
            #expect(asset.attempts == item.attempts, "\(item.id)")
            let target = "/" + item.path
            let gets = log.filter { $0.target == target && $0.method == "GET" }
            #expect(gets.count == item.requests, "\(item.id): \(gets)")
        }
        // Retry-After: 1 was waited out before the second request.
        #expect((report.message("throttled-429")?.ready_ms ?? 0) >= 900)
    }

    @Test(arguments: ["12X", "-1", "1.5M", "", "K", "99999999999G"])
    func badSizeIsAUsageError(size: String) async throws {
        let scratch = try Scratch()
        let manifest = try scratch.write("m.json", try manifestJSON([]))
        let result = try await CommandRunner.prefetch(["run", manifest, "--cache-dir", scratch.path("cache"), "--max-asset-size", size])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--max-asset-size"))
        #expect(scratch.listing() == ["m.json"])
    }
}
