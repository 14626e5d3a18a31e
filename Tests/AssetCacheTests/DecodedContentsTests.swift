@testable import AssetCache
import FixtureServer
import Foundation
import Testing

/// A run decodes each content once (``DecodedContents``): a second URL serving
/// bytes that already passed is not decoded again, and bytes that failed fail
/// at every URL serving them.
@Suite struct DecodedContentsTests {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("fixtures").path

    @Test func urlsServingTheSameBytesGetTheSameVerdict() async throws {
        let server = try await FixtureServer.start(root: Self.fixtures)
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("decoded-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: cache) }
        // Twice each: the second URL's bytes equal the first's.
        let paths = ["assets/img/rgb.png", "assets/img/rgb.png?copy=1", "assets/img/photo.jpg", "assets/img/photo.jpg?copy=1",
                     "hostile/img/crc-idat.png", "hostile/img/crc-idat.png?copy=1"]
        let triggers = paths.enumerated().map { index, path in
            #"{"id": "m\#(index)", "type": "inapp", "trigger_condition": [{"type": "open"}], "#
                + #""data": {"type": "MODAL", "image_url": "\#(server.url(path))"}}"#
        }
        let manifest = try Manifest.decode(Data(#"{"triggers": [\#(triggers.joined(separator: ","))]}"#.utf8))
        var options = PrefetchOptions()
        // One decode at a time, in manifest order: each copy is decoded after its twin.
        options.validationWorkers = 1
        options.transfer.concurrency = 1
        let report = try await Prefetcher(store: try CacheStore.openForWriting(at: cache), options: options).run(manifest)
        try await server.stop()

        #expect(report.totals.ready == 4)
        let records = report.assets.sorted { $0.url.string < $1.url.string }
        #expect(records.map(\.outcome) == [.downloaded, .downloaded, .downloaded, .downloaded, .failed, .failed])
        for pair in stride(from: 0, to: records.count, by: 2) {
            #expect(records[pair].sha256 == records[pair + 1].sha256)
            #expect(records[pair].failure == records[pair + 1].failure)
        }
        #expect(records[4].failure == AssetFailure(.invalidImage, "invalid PNG: IDAT: CRC error"))
    }
}
