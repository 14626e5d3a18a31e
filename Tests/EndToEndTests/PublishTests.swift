import AssetCache
import FixtureServer
import Foundation
import Testing

/// Issue 38, the publisher's side: `prefetch publish` judges a draft's assets
/// as a device would, pins them, stamps a version above every one published,
/// signs in signify's format; `publish --check` judges a published manifest.
@Suite struct PublishTests {
    struct Setup {
        let scratch: Scratch
        let server: FixtureServer
        let key: SignifyKeyPair
        var www: String { scratch.path("www") }
        var output: String { scratch.path("www/manifest.json") }
        static let audience = "lobby-screens"

        /// A good PNG, the same PNG cut short, a ZIP with an entry that
        /// escapes its root; served by FixtureServer.
        static func make() async throws -> Setup {
            let scratch = try Scratch()
            let www = scratch.path("www")
            for folder in ["img", "html"] { try FileManager.default.createDirectory(atPath: "\(www)/\(folder)", withIntermediateDirectories: true) }
            let png = try Data(contentsOf: Package.assets.appendingPathComponent("img/rgb.png"))
            try png.write(to: URL(fileURLWithPath: "\(www)/img/rgb.png"))
            try png.prefix(300).write(to: URL(fileURLWithPath: "\(www)/img/truncated.png"))
            try FileManager.default.copyItem(atPath: Package.assets.appendingPathComponent("html/slip.zip").path, toPath: "\(www)/html/slip.zip")
            let server = try await FixtureServer.start(root: www)
            return Setup(scratch: scratch, server: server, key: try await SignifyKeyPair.make("publisher", in: scratch))
        }

        /// The four messages of the issue: one good, three a device discards.
        var badDraft: [[String: Any]] {
            [
                inapp("good", ["type": "MODAL", "image_url": server.url("img/rgb.png")]),
                inapp("truncated", ["type": "MODAL", "image_url": server.url("img/truncated.png")]),
                inapp("slip", ["type": "HTML_FULL", "zipped_assets_url": server.url("html/slip.zip")]),
                inapp("imageless", ["type": "MODAL", "image_style": "GRAPHIC"]),
            ]
        }

        func draft(_ name: String, _ triggers: [[String: Any]]) throws -> String {
            try scratch.write(name, try manifestJSON(triggers))
        }

        func publish(_ draft: String, _ extra: [String] = []) async throws -> CommandResult {
            try await CommandRunner.prefetch([
                "publish", draft, "--output", output, "--key", key.secretKey, "--audience", Self.audience, "--expires", "7d", "--json",
            ] + extra)
        }

        /// A device with the publisher's key, the audience and `--require-integrity`.
        func device(_ manifest: String, cache: String = "device") async throws -> CommandResult {
            try await CommandRunner.prefetch([
                "run", manifest, "--trusted-key", key.publicKey, "--audience", Self.audience, "--require-integrity",
                "--cache-dir", scratch.path(cache), "--json",
            ])
        }

        func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }
    }

    /// Each message's verdict and detail, as a report gives them.
    static func verdicts(_ report: Report) -> [String: String] {
        Dictionary(uniqueKeysWithValues: report.messages.map { ($0.id, $0.verdict + " " + ($0.detail ?? "")) })
    }

    @Test func aDraftWithAssetsADeviceRefusesIsNotPublishedAndEachIsNamed() async throws {
        let setup = try await Setup.make()
        let result = try await setup.publish(try setup.draft("draft.json", setup.badDraft))
        try await setup.server.stop()

        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("3 of 4 messages would not be ready on a device (above); nothing was written"))
        let report = try result.report()
        #expect(report.message("good")?.status == "ready")
        #expect(report.message("truncated")?.verdict == "discarded:asset_invalid")
        #expect(report.message("truncated")?.detail?.hasPrefix("invalid_image: ") == true)
        #expect(report.message("slip")?.verdict == "discarded:asset_invalid")
        #expect(report.message("slip")?.detail?.hasPrefix("unsafe_archive: ") == true)
        #expect(report.message("imageless")?.verdict == "discarded:image_only_modal_without_image")
        #expect(!setup.exists(setup.output) && !setup.exists(setup.output + ".sig"))
        #expect(!setup.exists(setup.scratch.path("publisher.versions")))
    }

    @Test func withAllowDiscardsTheSignedManifestIsJudgedByADeviceExactlyAsPublished() async throws {
        let setup = try await Setup.make()
        let published = try await setup.publish(try setup.draft("draft.json", setup.badDraft), ["--allow-discards"])
        #expect(published.status == 0, "\(published.stderr)")
        #expect(published.stderr.contains("published \(setup.output): version "))

        let verified = try await SystemTool.run("signify-openbsd", ["-V", "-p", setup.key.publicKey, "-m", setup.output])
        #expect(verified.stdoutText == "Signature Verified\n")
        // A pin for every asset, of the bytes the server serves: the bad ones too,
        // so that a device judges the very bytes judged here.
        let manifest = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: setup.output))) as? [String: Any])
        let pins = try #require(manifest["integrity"] as? [String: String])
        for path in ["img/rgb.png", "img/truncated.png", "html/slip.zip"] {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: "\(setup.www)/\(path)"))
            #expect(pins[setup.server.url(path)] == "sha256-" + Data(SHA256Hex.digest(bytes)).base64EncodedString(), "\(path)")
        }
        #expect(pins.count == 3)
        #expect(manifest["audience"] as? String == Setup.audience)

        let device = try await setup.device(setup.output)
        try await setup.server.stop()
        #expect(device.status == 1, "\(device.stderr)")
        #expect(Self.verdicts(try device.report()) == Self.verdicts(try published.report()))
        #expect(try device.report().message("good")?.status == "ready")
    }

    @Test func twoPublishesInOneSecondGetIncreasingVersionsAndADeviceTakesBoth() async throws {
        let setup = try await Setup.make()
        let first = try setup.draft("first.json", [inapp("good", ["type": "MODAL", "image_url": setup.server.url("img/rgb.png")])])
        let second = try setup.draft("second.json", [inapp("other", ["type": "MODAL", "image_url": setup.server.url("img/rgb.png")])])
        // The clock stands still at one second for both publishes (-f: frozen).
        func publishAtOneSecond(_ draft: String) async throws -> Int64 {
            let result = try await CommandRunner.run(try SystemTool.location(of: "faketime"), [
                "-f", "2026-12-01 00:00:00", CommandRunner.binDirectory.appendingPathComponent("prefetch").path,
                "publish", draft, "--output", setup.output, "--key", setup.key.secretKey, "--audience", Setup.audience, "--expires", "30d",
            ], environment: ["FAKETIME_DONT_FAKE_MONOTONIC": "1"])
            #expect(result.status == 0, "\(result.stderr)")
            let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: setup.output))) as? [String: Any]
            return try #require((manifest?["version"] as? NSNumber)?.int64Value)
        }
        let firstVersion = try await publishAtOneSecond(first)
        #expect(firstVersion == Int64(try #require(RFC3339Date.parse("2026-12-01T00:00:00Z"))))
        let accepted = try await setup.device(setup.output)
        #expect(accepted.status == 0, "\(accepted.stderr)")

        let secondVersion = try await publishAtOneSecond(second)
        #expect(secondVersion == firstVersion + 1)
        let versions = try String(contentsOfFile: setup.scratch.path("publisher.versions"), encoding: .utf8)
        #expect(versions.contains("\"version\" : \(secondVersion)"))
        let next = try await setup.device(setup.output)
        try await setup.server.stop()
        #expect(next.status == 0, "\(next.stderr)")
        #expect(try next.report().message("other")?.status == "ready")
    }

    @Test func checkOfAPublishedManifestReportsTheAssetChangedSinceAsADeviceWould() async throws {
        let setup = try await Setup.make()
        let draft = try setup.draft("draft.json", [inapp("good", ["type": "MODAL", "image_url": setup.server.url("img/rgb.png")])])
        #expect(try await setup.publish(draft).status == 0)
        let check = ["publish", "--check", setup.output, "--trusted-key", setup.key.publicKey, "--audience", Setup.audience, "--json"]
        let before = try await CommandRunner.prefetch(check)
        #expect(before.status == 0, "\(before.stderr)")

        try FileManager.default.removeItem(atPath: "\(setup.www)/img/rgb.png")
        try FileManager.default.copyItem(atPath: Package.assets.appendingPathComponent("img/gray.png").path, toPath: "\(setup.www)/img/rgb.png")
        let after = try await CommandRunner.prefetch(check)
        let device = try await setup.device(setup.output)
        try await setup.server.stop()
        #expect(after.status == 1, "\(after.stderr)")
        #expect(try after.report().message("good")?.verdict == "discarded:asset_invalid")
        #expect(try after.report().message("good")?.detail?.hasPrefix("integrity_mismatch: ") == true)
        #expect(Self.verdicts(try after.report()) == Self.verdicts(try device.report()))
    }

    @Test func checkRefusesASignatureByAnotherKeyAsADeviceDoes() async throws {
        let setup = try await Setup.make()
        let draft = try setup.draft("draft.json", [inapp("good", ["type": "MODAL", "image_url": setup.server.url("img/rgb.png")])])
        #expect(try await setup.publish(draft).status == 0)
        let stranger = try await SignifyKeyPair.make("stranger", in: setup.scratch)
        let check = try await CommandRunner.prefetch(["publish", "--check", setup.output, "--trusted-key", stranger.publicKey, "--audience", Setup.audience])
        let otherAudience = try await CommandRunner.prefetch(["publish", "--check", setup.output, "--trusted-key", setup.key.publicKey, "--audience", "kiosks"])
        try await setup.server.stop()
        #expect(check.status == 2)
        #expect(check.stderr.contains("manifest refused: unknown key"), "\(check.stderr)")
        #expect(otherAudience.status == 2)
        #expect(otherAudience.stderr.contains("manifest refused: wrong audience"), "\(otherAudience.stderr)")
    }

    @Test func aVersionAboveThePreviousManifestIsSigned() async throws {
        let setup = try await Setup.make()
        let previous = try setup.scratch.write("previous.json", try manifestJSON([], signed: SignedFields(version: 5_000_000_000)))
        let draft = try setup.draft("draft.json", [inapp("good", ["type": "MODAL", "image_url": setup.server.url("img/rgb.png")])])
        let byFile = try await setup.publish(draft, ["--previous", previous])
        #expect(byFile.status == 0, "\(byFile.stderr)")
        #expect(byFile.stderr.contains("version 5000000001 "))
        try FileManager.default.copyItem(atPath: previous, toPath: "\(setup.www)/previous.json")
        try FileManager.default.removeItem(atPath: setup.scratch.path("publisher.versions"))
        try FileManager.default.removeItem(atPath: setup.output)
        let byURL = try await setup.publish(draft, ["--previous", setup.server.url("previous.json")])
        let nothingYet = try await setup.publish(draft, ["--previous", setup.server.url("none.json")])
        try await setup.server.stop()
        #expect(byURL.stderr.contains("version 5000000001 "), "\(byURL.stderr)")
        // 404: nothing published there yet; the versions file still counts.
        #expect(nothingYet.status == 0, "\(nothingYet.stderr)")
        #expect(nothingYet.stderr.contains("version 5000000002 "), "\(nothingYet.stderr)")
    }

    @Test func aKeySealedWithAPassphraseSignsAndThePassphraseReachesNoChild() async throws {
        let setup = try await Setup.make()
        let (publicKey, secretKey) = (setup.scratch.path("sealed.pub"), setup.scratch.path("sealed.sec"))
        let passphrase = "tr0ub4dor-\(UInt32.random(in: 0...UInt32.max))"
        try await SignifyTerminal.answer(passphrase, "signify-openbsd", ["-G", "-c", "sealed", "-p", publicKey, "-s", secretKey])
        let passphraseFile = try SignifySigningTests.privateFile(setup.scratch, "passphrase", passphrase + "\n")
        let draft = try setup.draft("draft.json", [inapp("good", ["type": "MODAL", "image_url": setup.server.url("img/rgb.png")])])
        let trace = setup.scratch.path("execve.trace")
        // Every program started, with its whole argv and environment (-v).
        let traced = try await CommandRunner.run(try SystemTool.location(of: "strace"), [
            "-f", "-qq", "-v", "-s", "65536", "-e", "trace=execve", "-o", trace,
            CommandRunner.binDirectory.appendingPathComponent("prefetch").path, "publish", draft, "--output", setup.output,
            "--key", secretKey, "--passphrase-file", passphraseFile, "--audience", Setup.audience, "--expires", "1d",
        ])
        #expect(traced.status == 0, "\(traced.stderr)")
        let verified = try await SystemTool.run("signify-openbsd", ["-V", "-p", publicKey, "-m", setup.output])
        #expect(verified.stdoutText == "Signature Verified\n")
        let execs = try String(contentsOfFile: trace, encoding: .utf8)
        #expect(execs.contains("execve("))
        #expect(!execs.contains(passphrase))

        // Typed at the terminal, as signify asks (the run throws unless it exits 0).
        let signedFirst = try Data(contentsOf: URL(fileURLWithPath: setup.output))
        _ = try await SystemTool.run("python3", [
            "-c", SignifyTerminal.script, passphrase, CommandRunner.binDirectory.appendingPathComponent("prefetch").path,
            "publish", draft, "--output", setup.output, "--key", secretKey, "--audience", Setup.audience, "--expires", "1d",
        ])
        #expect(try Data(contentsOf: URL(fileURLWithPath: setup.output)) != signedFirst)
        let verifiedAgain = try await SystemTool.run("signify-openbsd", ["-V", "-p", publicKey, "-m", setup.output])
        #expect(verifiedAgain.stdoutText == "Signature Verified\n")
        let wrong = try SignifySigningTests.privateFile(setup.scratch, "wrong", "not it\n")
        let refused = try await CommandRunner.prefetch([
            "publish", draft, "--output", setup.output, "--key", secretKey, "--passphrase-file", wrong, "--audience", Setup.audience, "--expires", "1d",
        ])
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: passphraseFile)
        let exposed = try await CommandRunner.prefetch([
            "publish", draft, "--output", setup.output, "--key", secretKey, "--passphrase-file", passphraseFile, "--audience", Setup.audience, "--expires", "1d",
        ])
        try await setup.server.stop()
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("wrong passphrase for secret key"), "\(refused.stderr)")
        #expect(exposed.status == 2)
        #expect(exposed.stderr.contains("passphrase file '\(passphraseFile)' is readable by others (mode 640)"), "\(exposed.stderr)")
    }

    @Test func aKeyOthersCanReadIsRefusedBeforeAnythingIsFetched() async throws {
        let setup = try await Setup.make()
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: setup.key.secretKey)
        let draft = try setup.draft("draft.json", [inapp("good", ["type": "MODAL", "image_url": setup.server.url("img/rgb.png")])])
        let result = try await setup.publish(draft)
        let requests = setup.server.requests()
        try await setup.server.stop()
        #expect(result.status == 2)
        #expect(result.stderr.contains("secret key '\(setup.key.secretKey)' is readable by others (mode 644)"), "\(result.stderr)")
        #expect(result.stderr.contains("hint: chmod 600 '\(setup.key.secretKey)'"))
        #expect(requests.isEmpty)
        #expect(!setup.exists(setup.output))
    }

    @Test func assetsFromAFolderThatMirrorsTheCDNAreJudgedAndPinned() async throws {
        let setup = try await Setup.make()
        try FileManager.default.createSymbolicLink(atPath: "\(setup.www)/img/link.png", withDestinationPath: "rgb.png")
        let draft = try setup.draft("draft.json", [
            inapp("good", ["type": "MODAL", "image_url": "https://cdn.example.com/img/rgb.png"]),
            inapp("cut", ["type": "MODAL", "image_url": "https://cdn.example.com/img/truncated.png"]),
            inapp("absent", ["type": "MODAL", "image_url": "https://cdn.example.com/img/absent.png"]),
            inapp("linked", ["type": "MODAL", "image_url": "https://cdn.example.com/img/link.png"]),
        ])
        let result = try await setup.publish(draft, ["--assets-from", setup.www, "--allow-discards"])
        let requests = setup.server.requests()
        try await setup.server.stop()
        #expect(result.status == 0, "\(result.stderr)")
        let report = try result.report()
        #expect(report.message("good")?.status == "ready")
        #expect(report.message("cut")?.detail?.hasPrefix("invalid_image: ") == true)
        // No file: a 404, so no bytes and no pin; a device requiring pins says so.
        #expect(report.message("absent")?.verdict == "discarded:integrity_missing")
        #expect(report.message("linked")?.verdict == "discarded:integrity_missing")
        #expect(requests.isEmpty)
        #expect(result.stderr.contains("https://cdn.example.com/img/absent.png gets no pin (http_status: HTTP 404"), "\(result.stderr)")
        #expect(result.stderr.contains("link.png is a symbolic link or not a directory, which is not followed"), "\(result.stderr)")
        let manifest = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: setup.output))) as? [String: Any])
        let pins = try #require(manifest["integrity"] as? [String: String])
        #expect(Set(pins.keys) == ["https://cdn.example.com/img/rgb.png", "https://cdn.example.com/img/truncated.png"])
    }

    @Test(arguments: [
        (["--expires", "0d"], "--expires"),
        (["--expires", "2020-01-01T00:00:00Z"], "is not after now"),
        (["--expires", "soon"], "--expires"),
    ])
    func anExpiryThatIsNotAheadIsAUsageError(arguments: [String], mention: String) async throws {
        let scratch = try Scratch()
        let key = try await SignifyKeyPair.make("publisher", in: scratch)
        let draft = try scratch.write("draft.json", try manifestJSON([]))
        let result = try await CommandRunner.prefetch(
            ["publish", draft, "--output", scratch.path("out.json"), "--key", key.secretKey, "--audience", "a"] + arguments)
        #expect(result.status == 2)
        #expect(result.stderr.contains(mention), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out.json")))
    }
}

/// SHA-256 for the tests' own checks of pins.
enum SHA256Hex {
    static func digest(_ data: Data) -> [UInt8] {
        let hex = IntegrityPin.sha256Hex(data)
        return stride(from: 0, to: hex.count, by: 2).map { offset in
            let start = hex.index(hex.startIndex, offsetBy: offset)
            return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)!
        }
    }
}
