import Crypto
import FixtureServer
import Foundation
import Testing

/// Issue 25, the transport: https is never redirected to http, the manifest's
/// credentials come from a file rather than the command line, no TLS secret is
/// written unless asked for, and `--require-integrity` leaves the asset server
/// no choice of bytes.
@Suite struct DowngradeAndSecretsTests {
    struct Servers {
        let scratch: Scratch
        let certificates: TestCertificates
        let secure: FixtureServer
        let plain: FixtureServer
        let names: [String]

        static func make() async throws -> Servers {
            let scratch = try Scratch()
            let certificates = try await TestCertificates.make(in: scratch)
            let names = try writeStyleSheets(2, in: scratch.path("www"))
            let secure = try await FixtureServer.start(
                root: scratch.path("www"),
                tls: FixtureTLS(certificateChainPath: certificates.serverCertificate, privateKeyPath: certificates.serverKey))
            let plain = try await FixtureServer.start(root: scratch.path("www"))
            return Servers(scratch: scratch, certificates: certificates, secure: secure, plain: plain, names: names)
        }

        func prefetch(_ arguments: [String], environment: [String: String] = [:]) async throws -> CommandResult {
            try await CommandRunner.prefetch(
                arguments + ["--cacert", certificates.caCertificate, "--cache-dir", scratch.path("cache")], environment: environment)
        }

        func stop() async throws {
            try await secure.stop()
            try await plain.stop()
        }
    }

    @Test func httpsIsNeverRedirectedToHTTP() async throws {
        let servers = try await Servers.make()
        let manifest = try manifestJSON(htmlMessages(servers.names, server: servers.secure.url))
        try Data(manifest.utf8).write(to: URL(fileURLWithPath: servers.scratch.path("www/manifest.json")))

        // The manifest: exit 69, insecure_redirect named, not one request to the http server.
        let target = servers.plain.url("manifest.json").addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let manifestDowngrade = try await servers.prefetch(["run", servers.secure.url("manifest.json?redirect=\(target)")])
        #expect(manifestDowngrade.status == 69)
        #expect(manifestDowngrade.stderr.contains("insecure_redirect: \(servers.secure.url("manifest.json?redirect=\(target)")) redirects to \(servers.plain.url("manifest.json")), which would drop TLS; not followed"), "\(manifestDowngrade.stderr)")

        // An asset: failed as insecure_redirect at once, its message discarded.
        let assetTarget = servers.plain.url(servers.names[1]).addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let local = try servers.scratch.write("m.json", try manifestJSON([
            inapp("safe", ["type": "HTML", "asset_urls": [servers.secure.url(servers.names[0])]]),
            inapp("downgraded", ["type": "HTML", "asset_urls": [servers.secure.url("\(servers.names[1])?redirect=\(assetTarget)")]]),
        ]))
        let run = try await servers.prefetch(["run", local, "--json"])
        #expect(run.status == 1, "\(run.stderr)")
        let report = try run.report()
        #expect(report.message("safe")?.status == "ready")
        #expect(report.message("downgraded")?.verdict == "discarded:asset_download_failed")
        let failed = try #require(report.assets.first { $0.url.contains("redirect=") })
        #expect(failed.error?.kind == "insecure_redirect")
        #expect(failed.attempts == 1)
        #expect(servers.plain.requests().isEmpty, "a plain request was made: \(servers.plain.requests().map(\.target))")
        try await servers.stop()
    }

    @Test func headersFromAFileStayOffTheCommandLine() async throws {
        let servers = try await Servers.make()
        try Data(try manifestJSON(htmlMessages(servers.names, server: servers.secure.url)).utf8)
            .write(to: URL(fileURLWithPath: servers.scratch.path("www/manifest.json")))
        let token = "Bearer 7c1f0e9d2b8a"
        let headers = try servers.scratch.write("headers", "# the manifest server's API token\nAuthorization: \(token)\r\n\nX-Device-Id: kiosk-7\n")
        #expect(chmod(headers, 0o600) == 0)

        // The manifest's answer is held back, so that the process's command line is
        // read while it waits for it: after the debug line that names the headers.
        // 5 s, not 1.5: with the suite's other processes on two cores the line
        // was once read after the answer came and the run had ended.
        let url = servers.secure.url("manifest.json?delay_ms=5000")
        let running = try RunningCommand([
            "run", url, "--header", "@\(headers)", "--cacert", servers.certificates.caCertificate,
            "--cache-dir", servers.scratch.path("cache"), "--log-level", "debug",
        ])
        guard await running.stderrContains("requesting the manifest with --header Authorization, X-Device-Id (values not logged)") else {
            Issue.record("no debug line: \(await running.wait().stderr)")
            return
        }
        let commandLine = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(running.pid)/cmdline"))
        let result = await running.wait()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!commandLine.isEmpty)
        #expect(String(decoding: commandLine, as: UTF8.self).contains("@\(headers)"))
        #expect(!String(decoding: commandLine, as: UTF8.self).contains("7c1f0e9d2b8a"))
        let manifestRequest = try #require(servers.secure.requests().first { $0.path == "/manifest.json" })
        #expect(manifestRequest.headers["authorization"] == token)
        #expect(manifestRequest.headers["x-device-id"] == "kiosk-7")
        #expect(servers.secure.requests().filter { $0.path != "/manifest.json" }.allSatisfy { $0.headers["authorization"] == nil })

        // Refused, naming the file but never a line of it: readable by every user,
        // a link, a FIFO (not waited on), a line that is not a header.
        #expect(chmod(headers, 0o644) == 0)
        let open = try await servers.prefetch(["run", url, "--header", "@\(headers)"])
        #expect(open.status == 2)
        #expect(open.stderr.contains("--header @\(headers): every user can read it (mode 644)"), "\(open.stderr)")
        #expect(chmod(headers, 0o600) == 0)
        let link = servers.scratch.path("link")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: headers)
        let linked = try await servers.prefetch(["run", url, "--header", "@\(link)"])
        #expect(linked.status == 2)
        #expect(linked.stderr.contains("it is a symbolic link, which is not followed"), "\(linked.stderr)")
        let fifo = servers.scratch.path("fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let piped = try await servers.prefetch(["run", url, "--header", "@\(fifo)"])
        #expect(piped.status == 2)
        #expect(piped.stderr.contains("it is not a regular file"), "\(piped.stderr)")
        let bad = try servers.scratch.write("bad-headers", "Authorization \(token)\n")
        #expect(chmod(bad, 0o600) == 0)
        let malformed = try await servers.prefetch(["run", url, "--header", "@\(bad)"])
        #expect(malformed.status == 2)
        #expect(malformed.stderr.contains("--header @\(bad), line 1: a --header has no ':'"), "\(malformed.stderr)")
        #expect(!malformed.stderr.contains("7c1f0e9d2b8a"))
        try await servers.stop()
    }

    @Test func sslKeyLogFileWritesNothingUnlessAllowed() async throws {
        let servers = try await Servers.make()
        let local = try servers.scratch.write("m.json", try manifestJSON(htmlMessages(servers.names, server: servers.secure.url)))
        let keylog = servers.scratch.path("keys.log")
        let ignored = try await servers.prefetch(["run", local], environment: ["SSLKEYLOGFILE": keylog])
        #expect(ignored.status == 0, "\(ignored.stderr)")
        #expect(!FileManager.default.fileExists(atPath: keylog))
        #expect(ignored.stderr.contains("SSLKEYLOGFILE is set and ignored"), "\(ignored.stderr)")

        // The same run with --allow-keylog writes the secrets: the check above can see them.
        let allowed = try await servers.prefetch(["run", local, "--allow-keylog"], environment: ["SSLKEYLOGFILE": keylog])
        #expect(allowed.status == 0, "\(allowed.stderr)")
        let written = (try? String(contentsOfFile: keylog, encoding: .utf8)) ?? ""
        #expect(written.contains("CLIENT_") || written.contains("SERVER_"), "\(written.prefix(200))")
        try await servers.stop()
    }

    @Test func requireIntegrityDiscardsWhatIsNotPinned() async throws {
        let servers = try await Servers.make()
        let pinned = servers.secure.url(servers.names[0])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: servers.scratch.path("www/\(servers.names[0])")))
        let pin = "sha256-" + Data(SHA256.hash(data: bytes)).base64EncodedString()
        let local = try servers.scratch.write("m.json", try manifestJSON([
            inapp("pinned", ["type": "HTML", "asset_urls": [pinned]]),
            inapp("unpinned", ["type": "HTML", "asset_urls": [pinned, servers.secure.url(servers.names[1])]]),
        ], integrity: [pinned: pin]))

        let run = try await servers.prefetch(["run", local, "--require-integrity", "--json"])
        #expect(run.status == 1, "\(run.stderr)")
        let report = try run.report()
        #expect(report.message("pinned")?.status == "ready")
        #expect(report.message("unpinned")?.verdict == "discarded:integrity_missing")
        #expect(report.message("unpinned")?.detail == "\(servers.secure.url(servers.names[1])) has no pin in the manifest's integrity")
        #expect(servers.secure.requests().map(\.path) == ["/\(servers.names[0])"])
        let plan = try await CommandRunner.prefetch(["plan", local, "--require-integrity", "--json", "--cache-dir", servers.scratch.path("cache")])
        #expect(try plan.report().message("unpinned")?.verdict == "discarded:integrity_missing")
        try await servers.stop()
    }
}
