import FixtureServer
import Foundation
import Logging
import Synchronization
import Testing
import AssetCache

/// PrefetchOptions.progress and .logger, through the public API only, as an
/// embedding app uses them.
@Suite struct PrefetchProgressTests {
    static let assets = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("fixtures/assets").path

    func manifest(_ server: FixtureServer) throws -> Manifest {
        var triggers = (0..<4).map { index in
            #"{"id": "m\#(index)", "type": "inapp", "trigger_condition": [{"type": "open"}], "data": {"type": "MODAL", "image_url": "\#(server.url("img/rgb.png?n=\(index)"))"}}"#
        }
        triggers.append(#"{"id": "flaky", "type": "inapp", "data": {"type": "MODAL", "image_url": "\#(server.url("img/rgb.png?status=503"))"}}"#)
        triggers.append(#"{"id": "other", "type": "push"}"#)
        return try Manifest.decode(Data(#"{"triggers": [\#(triggers.joined(separator: ","))]}"#.utf8))
    }

    @Test func updatesStartAtZeroNeverGoBackAndEndWithEveryAsset() async throws {
        let server = try await FixtureServer.start(root: Self.assets)
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("progress-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let updates = Collected<PrefetchProgress>()
        let lines = Collected<String>()
        var options = PrefetchOptions()
        options.transfer.retries = 1
        options.progress = { progress in updates.append(progress) }
        options.logger = Logger(label: "test") { _ in CapturingLogHandler(lines: lines) }

        let report = try await Prefetcher(store: try CacheStore.openForWriting(at: cache), options: options).run(try manifest(server))
        try await server.stop()

        let seen = updates.values
        #expect(seen.first == PrefetchProgress(totalAssets: 5, elapsed: seen.first?.elapsed ?? .zero))
        #expect(seen.map(\.completedAssets) == seen.map(\.completedAssets).sorted())
        #expect(seen.map(\.receivedBytes) == seen.map(\.receivedBytes).sorted())
        #expect(seen.compactMap(\.finished).count == 5)
        let last = try #require(seen.last)
        #expect(last.completedAssets == 5 && last.failedAssets == 1)
        #expect(last.receivedBytes >= report.totals.downloadedBytes)
        #expect(report.totals.ready == 4)

        let logged = lines.values
        #expect(logged.contains("warning: triggers[5]: skipped action of type 'push'"), "\(logged)")
        #expect(logged.contains { $0.hasPrefix("notice: retrying \(server.url("img/rgb.png?status=503")) in ") }, "\(logged)")
    }
}

final class Collected<Value: Sendable>: Sendable {
    private let storage = Mutex<[Value]>([])
    func append(_ value: Value) { storage.withLock { $0.append(value) } }
    var values: [Value] { storage.withLock { $0 } }
}

/// Keeps `level: message` lines.
struct CapturingLogHandler: LogHandler {
    let lines: Collected<String>
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        lines.append("\(event.level.rawValue): \(event.message)")
    }
}
