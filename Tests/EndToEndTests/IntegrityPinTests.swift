import FixtureServer
import Foundation
import Testing

/// Issue 19, point 1, through the real binary: the manifest's `integrity` pin holds
/// for a copy already in the cache — fresh, revalidated (304), `plan`, `--offline`
/// and readiness at display time (`simulate`) — for an image and for a ZIP, whose
/// pin is that of the ZIP's bytes. A matching pin keeps the copy ready with no
/// request at all.
@Suite struct IntegrityPinTests {
    static let wrongPin = "sha256-" + Data(repeating: 0xAB, count: 32).base64EncodedString()

    struct Setup {
        let scratch: Scratch
        let server: FixtureServer
        let image: String
        let bundle: String
        var cache: String { scratch.path("cache") }

        /// An image and a ZIP, both cached by a first run without pins.
        static func cached(query: String) async throws -> (Setup, Report) {
            let scratch = try Scratch()
            let server = try await FixtureServer.start(root: Package.assets.path)
            let setup = Setup(
                scratch: scratch, server: server,
                image: server.url("img/rgb.png" + query), bundle: server.url("html/bundle.zip" + query))
            let first = try await setup.prefetch(["run", try setup.manifest("unpinned.json"), "--json"])
            #expect(first.status == 0, "\(first.stderr)")
            return (setup, try first.report())
        }

        func manifest(_ name: String, pins: [String: String] = [:]) throws -> String {
            try scratch.write(name, try manifestJSON([
                inapp("image", ["type": "MODAL", "image_url": image]),
                inapp("bundle", ["type": "HTML_FULL", "zipped_assets_url": bundle]),
            ], integrity: pins))
        }

        func prefetch(_ arguments: [String]) async throws -> CommandResult {
            try await CommandRunner.prefetch(arguments + ["--cache-dir", cache])
        }

        /// Both messages discarded for the pin, the cache's copies untouched.
        func expectRefused(_ result: CommandResult, _ path: String, cached: Bool, sourceLocation: SourceLocation = #_sourceLocation) throws {
            #expect(result.status == 1, "\(path): \(result.stderr)", sourceLocation: sourceLocation)
            let report = try result.report()
            for (id, url) in [("image", image), ("bundle", bundle)] {
                #expect(report.message(id)?.verdict == "discarded:asset_invalid", "\(path) \(id)", sourceLocation: sourceLocation)
                #expect(report.asset(url)?.error?.kind == "integrity_mismatch", "\(path) \(id)", sourceLocation: sourceLocation)
                #expect(report.asset(url)?.error?.message.contains("cached copy") == cached, "\(path) \(id)", sourceLocation: sourceLocation)
            }
        }
    }

    static func pin(_ sha256: String?) throws -> String {
        let hex = Array(try #require(sha256).utf8)
        let bytes = stride(from: 0, to: hex.count, by: 2).map { UInt8(String(decoding: hex[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
        return "sha256-" + Data(bytes).base64EncodedString()
    }

    @Test func aFreshCopyIsRefusedOnEveryPathAndAMatchingPinNeedsNoRequest() async throws {
        let (setup, first) = try await Setup.cached(query: "?cache_control=max-age%3D3600")
        let wrong = try setup.manifest("wrong.json", pins: [setup.image: Self.wrongPin, setup.bundle: Self.wrongPin])
        let before = snapshot(setup.cache)

        // Without the network: refused from the copy's name alone, nothing written.
        try setup.expectRefused(try await setup.prefetch(["plan", wrong, "--json"]), "plan", cached: true)
        #expect(snapshot(setup.cache) == before)
        try setup.expectRefused(try await setup.prefetch(["run", wrong, "--offline", "--json"]), "--offline", cached: true)

        // With it: the fresh copy is set aside and fetched again, unconditionally;
        // the server's bytes fail the pin too, so nothing replaces the old ref.
        setup.server.resetLog()
        try setup.expectRefused(try await setup.prefetch(["run", wrong, "--json"]), "run", cached: false)
        let requests = setup.server.requests()
        // One whole request per URL. The ZIP's copy first serves as a delta's
        // base (its tail and ranges, by Range): the rebuilt bytes fail the pin.
        #expect(requests.filter { $0.headers["range"] == nil }.count == 2)
        #expect(requests.allSatisfy {
            [200, 206].contains($0.status) && $0.headers["if-none-match"] == nil && $0.headers["if-modified-since"] == nil
        })

        // Another manifest without pins still has its copies: nothing was dropped.
        setup.server.resetLog()
        let unpinned = try await setup.prefetch(["run", try setup.manifest("again.json"), "--json"])
        #expect(unpinned.status == 0)
        #expect(try unpinned.report().assets.allSatisfy { $0.outcome == "fresh" })

        // The right pins: ready from the cache, no request.
        let right = try setup.manifest("right.json", pins: [
            setup.image: try Self.pin(first.asset(setup.image)?.sha256), setup.bundle: try Self.pin(first.asset(setup.bundle)?.sha256),
        ])
        let pinned = try await setup.prefetch(["run", right, "--json"])
        #expect(pinned.status == 0, "\(pinned.stderr)")
        #expect(try pinned.report().assets.allSatisfy { $0.outcome == "fresh" })
        #expect(try await setup.prefetch(["plan", right, "--json"]).status == 0)
        #expect(setup.server.requests().isEmpty)
        try await setup.server.stop()
    }

    @Test func aCopyTheServerWouldConfirmWithA304IsRefused() async throws {
        let (setup, first) = try await Setup.cached(query: "?cache_control=no-cache")
        let wrong = try setup.manifest("wrong.json", pins: [setup.image: Self.wrongPin, setup.bundle: Self.wrongPin])
        setup.server.resetLog()

        try setup.expectRefused(try await setup.prefetch(["run", wrong, "--json"]), "run", cached: false)
        // No validator went out: a 304 cannot vouch for bytes the pin refuses.
        // (The ZIP's copy still serves as a delta's base: its tail is asked
        // for by range, and only bytes matching the pin would be kept.)
        #expect(setup.server.requests().allSatisfy { [200, 206].contains($0.status) && $0.headers["if-none-match"] == nil })

        // A matching pin: the publisher vouches for these bytes, so even a copy
        // that would be revalidated is used as it is.
        setup.server.resetLog()
        let right = try setup.manifest("right.json", pins: [
            setup.image: try Self.pin(first.asset(setup.image)?.sha256), setup.bundle: try Self.pin(first.asset(setup.bundle)?.sha256),
        ])
        let pinned = try await setup.prefetch(["run", right, "--json"])
        #expect(pinned.status == 0)
        #expect(setup.server.requests().isEmpty)
        try await setup.server.stop()
    }

    @Test func readinessAtDisplayTimeHoldsThePinToo() async throws {
        let (setup, first) = try await Setup.cached(query: "?cache_control=max-age%3D3600")
        try await setup.server.stop()
        let events = try setup.scratch.write("events.jsonl", "{\"at\": 0, \"event\": \"session_start\"}\n")
        func displayed(_ manifest: String) async throws -> [String: String] {
            let result = try await setup.prefetch(["simulate", manifest, "--events", events, "--json"])
            #expect(result.status == 0, "\(result.stderr)")
            var actions: [String: String] = [:]
            for line in result.stdoutText.split(separator: "\n") {
                let decision = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
                if let trigger = decision["trigger"] as? String {
                    actions[trigger] = "\(decision["action"]!):\(decision["reason"] as? String ?? "")"
                }
            }
            return actions
        }
        // One message a manifest: a trigger shows only the first of several.
        func single(_ id: String, _ pin: String) throws -> String {
            let data: [String: Any] = id == "image"
                ? ["type": "MODAL", "image_url": setup.image] : ["type": "HTML_FULL", "zipped_assets_url": setup.bundle]
            let url = id == "image" ? setup.image : setup.bundle
            return try setup.scratch.write("\(id)-\(pin == Self.wrongPin ? "wrong" : "right").json", try manifestJSON([inapp(id, data)], integrity: [url: pin]))
        }
        #expect(try await displayed(single("image", Self.wrongPin))["image"] == "discarded:asset_invalid")
        #expect(try await displayed(single("bundle", Self.wrongPin))["bundle"] == "discarded:asset_invalid")
        #expect(try await displayed(single("image", Self.pin(first.asset(setup.image)?.sha256)))["image"] == "displayed:")
        #expect(try await displayed(single("bundle", Self.pin(first.asset(setup.bundle)?.sha256)))["bundle"] == "displayed:")
    }
}
