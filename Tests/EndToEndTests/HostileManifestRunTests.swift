import Crypto
import FixtureServer
import Foundation
import Testing

/// Issue 4, point 4, through the binary: a wrong or malicious manifest exits 2
/// naming the JSON path, and the cache it was pointed at is left byte for byte
/// (names, contents, modes and times) as it was.
@Suite struct HostileManifestRunTests {
    /// Every file and folder below `root`: type, mode, size, mtime and SHA-256.
    static func snapshot(_ root: String) throws -> [String: String] {
        var result: [String: String] = [:]
        let manager = FileManager.default
        for relative in try manager.subpathsOfDirectory(atPath: root).sorted() {
            let path = root + "/" + relative
            var info = stat()
            guard lstat(path, &info) == 0 else { throw CocoaError(.fileReadUnknown) }
            var line = "mode=\(String(info.st_mode, radix: 8)) size=\(info.st_size) mtime=\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
            if info.st_mode & S_IFMT == S_IFREG {
                let digest = SHA256.hash(data: try Data(contentsOf: URL(fileURLWithPath: path)))
                line += " sha256=" + digest.map { String(format: "%02x", $0) }.joined()
            }
            result[relative] = line
        }
        return result
    }

    static let refused: [(name: String, json: String, path: String)] = [
        ("truncated JSON", #"{"triggers": [{"id": "a", "type": "inapp", "data": {}}"#, "triggers[0]"),
        ("trailing comma", #"{"triggers": [{"id": "a", "type": "inapp", "data": {},}]}"#, "triggers[0]"),
        ("wrong type", #"{"triggers": [{"id": "a", "type": "inapp", "data": {"image_url": ["x"]}}]}"#, "triggers[0].data.image_url"),
        ("missing id", #"{"triggers": [{"type": "inapp", "data": {}}]}"#, "triggers[0].id"),
        ("duplicate id", #"{"triggers": [{"id": "a", "type": "inapp", "data": {}}, {"id": "a", "type": "inapp", "data": {}}]}"#,
         "triggers[1].id"),
        ("duplicate key", #"{"triggers": [{"id": "a", "type": "inapp", "data": {}, "data": {}}]}"#, "triggers[0].data"),
        ("file URL", #"{"triggers": [{"id": "a", "type": "inapp", "data": {"image_url": "file:///etc/passwd"}}]}"#,
         "triggers[0].data.image_url"),
        ("huge number", #"{"triggers": [{"id": "a", "type": "inapp", "priority": 1e999, "data": {}}]}"#, "triggers[0].priority"),
        ("NaN", #"{"triggers": [{"id": "a", "type": "inapp", "priority": NaN, "data": {}}]}"#, "triggers[0].priority"),
        ("negative delay", #"{"triggers": [{"id": "a", "type": "inapp", "delay": -1, "data": {}}]}"#, "triggers[0].delay"),
        ("fractional time", #"{"triggers": [{"id": "a", "type": "inapp", "end_time": 0.5, "data": {}}]}"#, "triggers[0].end_time"),
        ("bad integrity", #"{"triggers": [], "integrity": {"http://cdn.test/a.png": "md5-x"}}"#, "integrity[\"http://cdn.test/a.png\"]"),
    ]

    @Test func refusedManifestsExitTwoNamingThePathAndLeaveTheCacheAsItWas() async throws {
        let scratch = try Scratch()
        let server = try await FixtureServer.start(root: Package.assets.path)
        let good = try scratch.write("good.json", try manifestJSON([
            inapp("image", ["type": "MODAL", "image_url": server.url("img/rgb.png")]),
            inapp("bundle", ["type": "HTML_FULL", "zipped_assets_url": server.url("html/bundle.zip")]),
        ]))
        let first = try await CommandRunner.prefetch(["run", good, "--cache-dir", scratch.path("cache")])
        try await server.stop()
        #expect(first.status == 0, "\(first.stderr)")
        let before = try Self.snapshot(scratch.path("cache"))
        #expect(before.keys.contains { $0.hasPrefix("trees/") })

        for item in Self.refused {
            let manifest = try scratch.write("bad.json", item.json)
            let result = try await CommandRunner.prefetch(["run", manifest, "--cache-dir", scratch.path("cache"), "--json"])
            #expect(result.status == 2, "\(item.name): \(result.stderr)")
            #expect(result.stderr.contains("invalid manifest: \(item.path): "), "\(item.name): \(result.stderr)")
            #expect(result.stdout.isEmpty, "\(item.name)")
            #expect(try Self.snapshot(scratch.path("cache")) == before, "\(item.name) changed the cache")
        }
    }

    @Test func unknownMessageTypeDiscardsOnlyThatMessage() async throws {
        let scratch = try Scratch()
        let server = try await FixtureServer.start(root: Package.assets.path)
        let manifest = try scratch.write("m.json", try manifestJSON([
            inapp("future", ["type": "CAROUSEL", "image_url": server.url("img/rgb.png")]),
            inapp("today", ["type": "MODAL", "image_url": server.url("img/gray.png")]),
        ]))
        let result = try await CommandRunner.prefetch(["run", manifest, "--cache-dir", scratch.path("cache"), "--json"])
        let requests = server.requests()
        try await server.stop()
        #expect(result.status == 1, "\(result.stderr)")
        let report = try result.report()
        #expect(report.message("future")?.verdict == "discarded:unsupported_message_type")
        #expect(report.message("today")?.status == "ready")
        // The unsupported message's image is not fetched.
        #expect(requests.map(\.path) == ["/img/gray.png"])
    }
}
