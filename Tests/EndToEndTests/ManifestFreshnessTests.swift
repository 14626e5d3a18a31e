import AssetCache
import FixtureServer
import Foundation
import Testing

/// Issue 25: a signed manifest is used only while it is the newest for this
/// device and still true. Each attack of the issue is played against the real
/// binary and a real server: the old manifest replayed, two manifests of one
/// version, another group's manifest, a retired key's old one, an expired one,
/// a clock set back, and a `Cache-Control` that would freeze the device.
@Suite struct ManifestFreshnessTests {
    struct Setup {
        let scratch: Scratch
        let server: FixtureServer
        let names: [String]
        let publisher: SignifyKeyPair
        var www: String { scratch.path("www") }
        var cache: String { scratch.path("cache") }

        static func make() async throws -> Setup {
            let scratch = try Scratch()
            let names = try writeStyleSheets(3, in: scratch.path("www"))
            let server = try await FixtureServer.start(root: scratch.path("www"))
            return Setup(scratch: scratch, server: server, names: names, publisher: try await SignifyKeyPair.make("publisher", in: scratch))
        }

        /// The manifest of `version` served at `www/name` and signed: message
        /// `html<i>` for each of `only` (all files by default).
        @discardableResult
        func publish(
            _ signed: SignedFields, name: String = "manifest.json", only: [Int]? = nil, key: SignifyKeyPair? = nil
        ) async throws -> String {
            let chosen = (only ?? Array(names.indices)).map { names[$0] }
            let messages = htmlMessages(chosen, server: server.url).enumerated().map { index, message in
                var message = message
                message["id"] = "v\(signed.version)-\(index)"
                return message
            }
            let path = "\(www)/\(name)"
            try Data(try manifestJSON(messages, signed: signed).utf8).write(to: URL(fileURLWithPath: path))
            try await (key ?? publisher).sign(path)
            return path
        }

        func run(_ url: String, _ extra: [String] = [], key: SignifyKeyPair? = nil, environment: [String: String] = [:]) async throws -> CommandResult {
            try await CommandRunner.prefetch(
                ["run", url, "--trusted-key", (key ?? publisher).publicKey, "--cache-dir", cache, "--json"] + extra,
                environment: environment)
        }

        /// `prefetch run` as if the clock said `time`: libfaketime, as the kernel's
        /// clock would be on a device that keeps another time.
        func run(_ url: String, at time: Double) async throws -> CommandResult {
            let arguments = ["@\(Int(time))", CommandRunner.binDirectory.appendingPathComponent("prefetch").path,
                             "run", url, "--trusted-key", publisher.publicKey, "--cache-dir", cache, "--json"]
            return try await SystemTool.runAllowingFailure("faketime", arguments)
        }
    }

    @Test func replayOfAnOlderVersionIsRefusedAsRollback() async throws {
        let setup = try await Setup.make()
        let url = setup.server.url("manifest.json")
        try await setup.publish(SignedFields(version: 1, audience: url), only: [0])
        let old = try Data(contentsOf: URL(fileURLWithPath: "\(setup.www)/manifest.json"))
        let oldSignature = try Data(contentsOf: URL(fileURLWithPath: "\(setup.www)/manifest.json.sig"))
        #expect(try await setup.run(url).status == 0)
        try await setup.publish(SignedFields(version: 2, audience: url), only: [1])
        let second = try await setup.run(url)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(try second.report().messages.map(\.id) == ["v2-0"])

        // The network serves version 1 again, correctly signed.
        try old.write(to: URL(fileURLWithPath: "\(setup.www)/manifest.json"))
        try oldSignature.write(to: URL(fileURLWithPath: "\(setup.www)/manifest.json.sig"))
        let before = snapshot(setup.cache)
        setup.server.resetLog()
        let replay = try await setup.run(url)
        #expect(replay.status == 2)
        #expect(replay.stderr.contains("manifest refused: rollback: version 1 is older than version 2, which this device already accepted for '\(url)'"), "\(replay.stderr)")
        #expect(replay.stdout.isEmpty)
        #expect(snapshot(setup.cache) == before)
        #expect(setup.server.requests().allSatisfy { $0.path.hasPrefix("/manifest.json") }, "a refused manifest's assets were requested")
        try await setup.server.stop()
    }

    @Test func theSameVersionWithOtherBytesIsRefusedAsEquivocation() async throws {
        let setup = try await Setup.make()
        let url = setup.server.url("manifest.json")
        try await setup.publish(SignedFields(version: 5, audience: url), only: [0])
        #expect(try await setup.run(url).status == 0)
        // The same bytes again: a quiet no-op.
        let again = try await setup.run(url)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(!again.stderr.contains("warning"), "\(again.stderr)")

        try await setup.publish(SignedFields(version: 5, audience: url), only: [0, 1])
        let before = snapshot(setup.cache)
        let other = try await setup.run(url)
        #expect(other.status == 2)
        #expect(other.stderr.contains("manifest refused: equivocation: version 5 was already accepted for '\(url)' with other bytes"), "\(other.stderr)")
        #expect(snapshot(setup.cache) == before)
        try await setup.server.stop()
    }

    @Test func anotherAudiencesManifestIsRefused() async throws {
        let setup = try await Setup.make()
        let url = setup.server.url("manifest.json")
        // Group B's manifest, served at group A's URL.
        try await setup.publish(SignedFields(version: 1, audience: setup.server.url("group-b/manifest.json")))
        let moved = try await setup.run(url)
        #expect(moved.status == 2)
        #expect(moved.stderr.contains("manifest refused: wrong audience: the manifest is for '\(setup.server.url("group-b/manifest.json"))', and this device is '\(url)'"), "\(moved.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(setup.cache)/trust"))

        // A channel: the device names it with --audience, and a manifest for another channel is refused.
        try await setup.publish(SignedFields(version: 1, audience: "lobby-screens"))
        #expect(try await setup.run(url, ["--audience", "lobby-screens"]).status == 0)
        let otherChannel = try await setup.run(url, ["--audience", "menu-boards"])
        #expect(otherChannel.status == 2)
        #expect(otherChannel.stderr.contains("wrong audience: the manifest is for 'lobby-screens', and this device is '\(url)' or 'menu-boards'"), "\(otherChannel.stderr)")

        // A local file has no URL: only a channel can name it.
        let local = try await setup.publish(SignedFields(version: 2, audience: "lobby-screens"), name: "local.json")
        let unnamed = try await CommandRunner.prefetch(["plan", local, "--trusted-key", setup.publisher.publicKey, "--cache-dir", setup.cache])
        #expect(unnamed.status == 2)
        #expect(unnamed.stderr.contains("this device has no audience for a manifest read from a file; pass --audience 'lobby-screens'"), "\(unnamed.stderr)")
        let named = try await CommandRunner.prefetch(
            ["plan", local, "--trusted-key", setup.publisher.publicKey, "--audience", "lobby-screens", "--cache-dir", setup.cache, "--json"])
        #expect(named.status == 0, "\(named.stderr)")
        #expect(try named.report().totals.ready == 3)
        try await setup.server.stop()
    }

    @Test func aRetiredKeysOlderManifestIsRefusedAsRollback() async throws {
        let setup = try await Setup.make()
        let url = setup.server.url("manifest.json")
        let next = try await SignifyKeyPair.make("next", in: setup.scratch)
        try await setup.publish(SignedFields(version: 7, audience: url), only: [0])
        let retired = try Data(contentsOf: URL(fileURLWithPath: "\(setup.www)/manifest.json"))
        let retiredSignature = try Data(contentsOf: URL(fileURLWithPath: "\(setup.www)/manifest.json.sig"))
        let both = ["--trusted-key", next.publicKey]
        #expect(try await setup.run(url, both).status == 0)
        // Rotation: version 8 is signed with the next key; both are still trusted.
        try await setup.publish(SignedFields(version: 8, audience: url), only: [1], key: next)
        #expect(try await setup.run(url, both).status == 0)

        try retired.write(to: URL(fileURLWithPath: "\(setup.www)/manifest.json"))
        try retiredSignature.write(to: URL(fileURLWithPath: "\(setup.www)/manifest.json.sig"))
        let replay = try await setup.run(url, both)
        #expect(replay.status == 2)
        #expect(replay.stderr.contains("rollback: version 7 is older than version 8"), "\(replay.stderr)")
        try await setup.server.stop()
    }

    @Test func anExpiredManifestIsRefusedAndAStoredOneThatExpiresHoldsItsMessagesBack() async throws {
        let setup = try await Setup.make()
        let url = setup.server.url("manifest.json")
        let now = Date().timeIntervalSince1970
        try await setup.publish(SignedFields(version: 1, audience: url, expires: now - 60))
        let expired = try await setup.run(url)
        #expect(expired.status == 2)
        #expect(expired.stderr.contains("manifest refused: expired: the manifest expired at \(RFC3339Date.format(now - 60))"), "\(expired.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(setup.cache)/trust"))

        // Accepted while true; two days later the server still serves it (a 304).
        try await setup.publish(SignedFields(version: 2, audience: url, expires: now + 86_400))
        let fresh = try await setup.run(url)
        #expect(fresh.status == 0, "\(fresh.stderr)")
        #expect(try fresh.report().totals.ready == 3)
        let later = try await setup.run(url, at: now + 2 * 86_400)
        #expect(later.status == 1, "\(later.stderr)")
        let held = try later.report()
        #expect(held.messages.allSatisfy { $0.verdict == "discarded:manifest_expired" })
        #expect(held.assets.isEmpty)

        // The clock set back to before `expires`: the time trusted by the later run holds.
        let setBack = try await setup.run(url)
        #expect(setBack.status == 1, "\(setBack.stderr)")
        #expect(try setBack.report().messages.allSatisfy { $0.verdict == "discarded:manifest_expired" })
        #expect(setBack.stderr.contains("is behind the latest trusted time"), "\(setBack.stderr)")
        // And a new manifest that expires before that time is refused, not revived.
        try await setup.publish(SignedFields(version: 3, audience: url, expires: now + 86_400))
        let stale = try await setup.run(url)
        #expect(stale.status == 2)
        #expect(stale.stderr.contains("expired: the manifest expired at \(RFC3339Date.format(now + 86_400)); the device's trusted time is"), "\(stale.stderr)")
        try await setup.server.stop()
    }

    @Test func aSigningTimeFarAheadOfTheClockDoesNotMoveTheTrustedTime() async throws {
        let setup = try await Setup.make()
        let url = setup.server.url("manifest.json")
        let now = Date().timeIntervalSince1970
        // Signed "in year 9999" by a publisher whose clock is wrong.
        try await setup.publish(SignedFields(version: 1, audience: url, expires: now + 86_400, signedAt: 253_402_300_000))
        #expect(try await setup.run(url).status == 0)
        try await setup.publish(SignedFields(version: 2, audience: url, expires: now + 3_600, signedAt: now))
        let next = try await setup.run(url)
        #expect(next.status == 0, "\(next.stderr)")
        #expect(try next.report().totals.ready == 3)
        try await setup.server.stop()
    }

    @Test func aLongMaxAgeFreezesNeitherTheManifestNorItsSignature() async throws {
        let setup = try await Setup.make()
        for (index, query) in ["cache_control=max-age%3D315360000", "cache_control=max-age%3D315360000&only=.sig"].enumerated() {
            let name = "m\(index).json"
            let url = setup.server.url("\(name)?\(query)")
            try await setup.publish(SignedFields(version: 1, audience: url), name: name, only: [0])
            #expect(try await setup.run(url).status == 0)
            try await setup.publish(SignedFields(version: 2, audience: url), name: name, only: [1])
            setup.server.resetLog()

            let next = try await setup.run(url)
            #expect(next.status == 0, "\(query): \(next.stderr)")
            #expect(try next.report().messages.map(\.id) == ["v2-0"], "\(query)")
            let requests = setup.server.requests()
            let manifest = requests.filter { $0.path == "/\(name)" }
            let signature = requests.filter { $0.path == "/\(name).sig" }
            // The manifest is asked for conditionally, the signature whole.
            #expect(manifest.count == 1 && manifest[0].status == 200 && manifest[0].headers["if-none-match"] != nil, "\(query): \(manifest)")
            #expect(signature.count == 1 && signature[0].status == 200 && signature[0].headers["if-none-match"] == nil, "\(query): \(signature)")
        }
        try await setup.server.stop()
    }

    @Test func anEndlessOrTricklingSignatureEndsTheRunWithExit69() async throws {
        let setup = try await Setup.make()
        try await setup.publish(SignedFields(version: 1, audience: "kiosks"))
        let endless = try await setup.run(setup.server.url("manifest.json?endless=1&only=.sig"), ["--audience", "kiosks"])
        #expect(endless.status == 69)
        #expect(endless.stderr.contains("exceeds the 64 KiB limit"), "\(endless.stderr)")

        let started = ContinuousClock.now
        let trickle = try await setup.run(setup.server.url("manifest.json?rate=1&only=.sig"), ["--audience", "kiosks", "--max-time", "2"])
        #expect(trickle.status == 69)
        #expect(trickle.stderr.contains("took more than 2 s together (--max-time)"), "\(trickle.stderr)")
        // Bounded by the deadline, not by the stall timeout's retries (4 × 15 s).
        #expect(ContinuousClock.now - started < .seconds(30))
        #expect(!FileManager.default.fileExists(atPath: "\(setup.cache)/trust"))
        try await setup.server.stop()
    }
}

extension SystemTool {
    /// The tool's result whatever its exit status (a `prefetch` under faketime).
    static func runAllowingFailure(_ name: String, _ arguments: [String]) async throws -> CommandResult {
        do {
            return try await run(name, arguments)
        } catch let failure as ToolFailure {
            return failure.result
        }
    }
}
