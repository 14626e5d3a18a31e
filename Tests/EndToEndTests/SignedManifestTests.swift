import FixtureServer
import Foundation
import Testing

/// Issue 11, signed manifests: a manifest signed with `signify-openbsd -S` is
/// read only with a trusted key's signature; every refusal names its cause,
/// exits as documented and leaves the cache as it was.
@Suite struct SignedManifestTests {
    struct Setup {
        let scratch: Scratch
        let server: FixtureServer
        let names: [String]
        let publisher: SignifyKeyPair
        let stranger: SignifyKeyPair
        var www: String { scratch.path("www") }
        var cache: String { scratch.path("cache") }

        static func make() async throws -> Setup {
            let scratch = try Scratch()
            let names = try writeStyleSheets(2, in: scratch.path("www"))
            let server = try await FixtureServer.start(root: scratch.path("www"))
            return Setup(
                scratch: scratch, server: server, names: names,
                publisher: try await SignifyKeyPair.make("publisher", in: scratch),
                stranger: try await SignifyKeyPair.make("stranger", in: scratch))
        }

        var manifestText: String {
            get throws { try manifestJSON(htmlMessages(names, server: server.url), signed: SignedFields()) }
        }

        /// Signed manifests name their audience: these tests' channel.
        func prefetch(_ arguments: [String], stdin: Data? = nil) async throws -> CommandResult {
            let audience = arguments.contains("--trusted-key") ? ["--audience", SignedFields.channel] : []
            return try await CommandRunner.prefetch(arguments + audience + ["--cache-dir", cache], stdin: stdin)
        }
    }

    @Test func signedManifestIsReadWithItsKeyAmongSeveral() async throws {
        let setup = try await Setup.make()
        let manifest = try setup.scratch.write("m.json", try setup.manifestText)
        try await setup.publisher.sign(manifest)

        let alone = try await setup.prefetch(["run", manifest, "--trusted-key", setup.publisher.publicKey, "--json"])
        #expect(alone.status == 0, "\(alone.stderr)")
        #expect(try alone.report().totals.ready == 2)

        // Rotation: the old and the new key trusted at once; the signature's key number picks.
        let rotating = try await setup.prefetch([
            "run", manifest, "--trusted-key", setup.stranger.publicKey, "--trusted-key", setup.publisher.publicKey, "--json",
        ])
        #expect(rotating.status == 0, "\(rotating.stderr)")
        let plan = try await setup.prefetch(["plan", manifest, "--trusted-key", setup.publisher.publicKey, "--json"])
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(try plan.report().totals.ready == 2)
        try await setup.server.stop()
    }

    @Test func everyLocalRefusalNamesItsCauseAndLeavesTheCacheAsItWas() async throws {
        let setup = try await Setup.make()
        let text = try setup.manifestText
        let signed = try setup.scratch.write("m.json", text)
        try await setup.publisher.sign(signed)
        let first = try await setup.prefetch(["run", signed, "--trusted-key", setup.publisher.publicKey])
        #expect(first.status == 0, "\(first.stderr)")
        let before = try HostileManifestRunTests.snapshot(setup.cache)
        setup.server.resetLog()

        let unsigned = try setup.scratch.write("unsigned.json", text)
        let foreign = try setup.scratch.write("foreign.json", text)
        try await setup.stranger.sign(foreign)
        // One byte flipped after signing: '0' of "html0" becomes '1', still valid JSON.
        var flippedBytes = Array(text.utf8)
        let index = try #require(text.range(of: "\"html0\"")).lowerBound.utf16Offset(in: text) + 5
        flippedBytes[index] ^= 0x01
        let flipped = setup.scratch.path("flipped.json")
        try Data(flippedBytes).write(to: URL(fileURLWithPath: flipped))
        try FileManager.default.copyItem(atPath: signed + ".sig", toPath: flipped + ".sig")
        let truncated = try setup.scratch.write("truncated.json", text)
        let signature = try Data(contentsOf: URL(fileURLWithPath: signed + ".sig"))
        try signature.prefix(signature.count - 20).write(to: URL(fileURLWithPath: truncated + ".sig"))

        let cases: [(manifest: String, cause: String)] = [
            (unsigned, "signature missing: there is no '\(unsigned).sig'"),
            (foreign, "unknown key: '\(foreign).sig' was made by key"),
            (flipped, "bad signature: '\(flipped).sig' does not match the manifest's bytes"),
            (truncated, "signature malformed: '\(truncated).sig' is not a detached signify signature"),
        ]
        for item in cases {
            for command in ["run", "plan"] {
                let result = try await setup.prefetch([command, item.manifest, "--trusted-key", setup.publisher.publicKey, "--json"])
                #expect(result.status == 2, "\(command) \(item.manifest): \(result.stderr)")
                #expect(result.stderr.contains("manifest refused: \(item.cause)"), "\(command): \(result.stderr)")
                #expect(result.stdout.isEmpty)
                #expect(try HostileManifestRunTests.snapshot(setup.cache) == before, "\(command) \(item.manifest) changed the cache")
            }
        }
        let piped = try await setup.prefetch(["run", "-", "--trusted-key", setup.publisher.publicKey], stdin: Data(text.utf8))
        #expect(piped.status == 2)
        #expect(piped.stderr.contains("a manifest on stdin cannot be checked against --trusted-key"))
        #expect(try HostileManifestRunTests.snapshot(setup.cache) == before)
        #expect(setup.server.requests().isEmpty, "a refused manifest's assets were requested")
        try await setup.server.stop()
    }

    @Test func remoteManifestIsCheckedAgainstItsSignatureURL() async throws {
        let setup = try await Setup.make()
        let text = try setup.manifestText
        let served = "\(setup.www)/manifest.json"
        try Data(text.utf8).write(to: URL(fileURLWithPath: served))
        try await setup.publisher.sign(served)
        let url = setup.server.url("manifest.json?cache_control=no-cache")

        let accepted = try await setup.prefetch(["run", url, "--trusted-key", setup.publisher.publicKey, "--json"])
        #expect(accepted.status == 0, "\(accepted.stderr)")
        #expect(try accepted.report().totals.ready == 2)
        // `.sig` ends the path; the query stays.
        #expect(setup.server.requests().map(\.target).contains("/manifest.json.sig?cache_control=no-cache"))

        // The .sig answers 404: exit 69, nothing stored of the new manifest.
        try Data(text.utf8).write(to: URL(fileURLWithPath: "\(setup.www)/unsigned.json"))
        let unsignedURL = setup.server.url("unsigned.json")
        var before = snapshot(setup.cache)
        let missing = try await setup.prefetch(["run", unsignedURL, "--trusted-key", setup.publisher.publicKey])
        #expect(missing.status == 69, "\(missing.stderr)")
        #expect(missing.stderr.contains("manifest refused: signature missing: \(setup.server.url("unsigned.json.sig")) could not be fetched: HTTP 404"), "\(missing.stderr)")
        #expect(snapshot(setup.cache) == before)

        // The served manifest changes after signing: exit 2, the cached copy kept as it was.
        try Data((text + " ").utf8).write(to: URL(fileURLWithPath: served))
        before = snapshot(setup.cache)
        let tampered = try await setup.prefetch(["run", url, "--trusted-key", setup.publisher.publicKey])
        #expect(tampered.status == 2, "\(tampered.stderr)")
        #expect(tampered.stderr.contains("manifest refused: bad signature: '\(setup.server.url("manifest.json.sig?cache_control=no-cache"))'"), "\(tampered.stderr)")
        #expect(snapshot(setup.cache) == before)
        try await setup.server.stop()
    }
}
