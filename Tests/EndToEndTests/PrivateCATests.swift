import FixtureServer
import Foundation
import Testing

/// Issue 11, `--cacert`: over real TLS, against a fixture server whose
/// certificate a private CA (made by openssl for the test) issued.
@Suite struct PrivateCATests {
    @Test func privateCAIsRefusedWithoutCacertAndTrustedWithIt() async throws {
        let scratch = try Scratch()
        let certificates = try await TestCertificates.make(in: scratch)
        let names = try writeStyleSheets(2, in: scratch.path("www"))
        let server = try await FixtureServer.start(
            root: scratch.path("www"),
            tls: FixtureTLS(certificateChainPath: certificates.serverCertificate, privateKeyPath: certificates.serverKey))
        #expect(server.baseURL.hasPrefix("https://127.0.0.1:"))
        let manifest = try manifestJSON(htmlMessages(names, server: server.url))
        try Data(manifest.utf8).write(to: URL(fileURLWithPath: scratch.path("www/manifest.json")))
        let local = try scratch.write("m.json", manifest)

        // The system's CAs do not know this one: a manifest URL exits 69, an asset fails as `network`.
        let remote = try await CommandRunner.prefetch(["run", server.url("manifest.json"), "--cache-dir", scratch.path("cache")])
        #expect(remote.status == 69, "\(remote.stderr)")
        #expect(remote.stderr.contains("SSL certificate problem: unable to get local issuer certificate"), "\(remote.stderr)")
        let assets = try await CommandRunner.prefetch(["run", local, "--cache-dir", scratch.path("cache"), "--json"])
        #expect(assets.status == 1, "\(assets.stderr)")
        let failed = try assets.report().assets
        #expect(failed.count == 2)
        for asset in failed {
            #expect(asset.error?.kind == "network")
            #expect(asset.error?.message.contains("certificate problem") == true, "\(asset.error?.message ?? "")")
            // A certificate does not change between attempts: no retry.
            #expect(asset.attempts == 1)
        }

        let trusted = try await CommandRunner.prefetch(
            ["run", server.url("manifest.json"), "--cacert", certificates.caCertificate, "--cache-dir", scratch.path("cache"), "--json"])
        #expect(trusted.status == 0, "\(trusted.stderr)")
        let report = try trusted.report()
        #expect(report.totals.ready == 2)
        #expect(report.assets.allSatisfy { $0.outcome == "downloaded" })
        try await server.stop()
    }

    @Test func unusableCacertIsRefusedBeforeAnyRequest() async throws {
        let scratch = try Scratch()
        let notPEM = try scratch.write("ca.txt", "not a certificate\n")
        let cases: [(file: String, message: String)] = [
            (scratch.path("absent.pem"), "cannot read --cacert '\(scratch.path("absent.pem"))': no such readable file"),
            (notPEM, "--cacert '\(notPEM)' holds no PEM certificate"),
        ]
        for item in cases {
            let result = try await CommandRunner.prefetch(
                ["run", "https://127.0.0.1:9/manifest.json", "--cacert", item.file, "--cache-dir", scratch.path("cache")])
            #expect(result.status == 2, "\(result.stderr)")
            #expect(result.stderr.contains(item.message), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: scratch.path("cache")))
        }
    }
}
