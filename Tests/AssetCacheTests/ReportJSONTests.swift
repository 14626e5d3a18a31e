import Foundation
import Testing
@testable import AssetCache

/// The hand-written report JSON says what the Encodable conformance says.
@Suite struct ReportJSONTests {
    @Test func prettyJSONMatchesTheEncodableReport() throws {
        let manifest = try Manifest.decode(Data(#"""
        {"triggers": [
          {"id": "ready \"one\"", "type": "inapp", "data": {"type": "MODAL", "image_url": "http://e.com/a/b.png"}},
          {"id": "broken", "type": "inapp", "data": {"type": "HTML_FULL", "zipped_assets_url": "http://e.com/z.zip"}},
          {"id": "proven", "type": "inapp", "data": {"type": "HTML_FULL", "zipped_assets_url": "http://e.com/y.zip"}},
          {"id": "later", "type": "inapp", "prefetch": false, "data": {"type": "SLIDEUP", "image_url": "http://e.com/later.png"}},
          {"id": "new-kind", "type": "inapp", "data": {"type": "CAROUSEL"}},
          {"id": "empty", "type": "inapp", "data": {"type": "SLIDEUP"}}
        ]}
        """#.utf8))
        let plan = AssetPlan(manifest: manifest, now: 0)
        let image = try AssetURL(parsing: "http://e.com/a/b.png")
        let zip = try AssetURL(parsing: "http://e.com/z.zip")
        var zipRecord = AssetRecord(
            url: zip, kind: .archive, outcome: .failed, attempts: 4,
            failure: AssetFailure(.unsafeArchive, "entry '../x\t\u{01}' escapes \\ the \"root\""), finishedMs: 7)
        zipRecord.delta = DeltaStats(fetchedBytes: 9042, reusedBytes: 2_485_604, requests: 3)
        zipRecord.deltaFallback = .integrityMismatch
        let proven = try AssetURL(parsing: "http://e.com/y.zip")
        var provenRecord = AssetRecord(
            url: proven, kind: .archive, outcome: .downloaded, sha256: String(repeating: "cd", count: 32), bytes: 2_494_646,
            path: "/cache/trees/cd", attempts: 2, failure: nil, finishedMs: 30)
        provenRecord.delta = DeltaStats(fetchedBytes: 7040, reusedBytes: 2_487_606, requests: 2)
        provenRecord.deltaEvidence = .digest
        let records: [KindedURL: AssetRecord] = [
            KindedURL(url: image, kind: .image): AssetRecord(
                url: image, kind: .image, outcome: .downloaded, sha256: String(repeating: "ab", count: 32), bytes: 1234,
                path: "/cache/objects/ab/é", attempts: 2, failure: nil, finishedMs: 41),
            KindedURL(url: zip, kind: .archive): zipRecord,
            KindedURL(url: proven, kind: .archive): provenRecord,
        ]
        var report = PrefetchReport(
            manifest: manifest, plan: plan, records: records, now: 0, cacheDirectory: "/cache/dir", durationMs: 812)
        report.connections = 3
        report.link = LinkOutages(outages: 2, downSeconds: 3.2504)
        report.manifestOrigin = ManifestOrigin(url: "https://cdn.test/m.json", source: .stored, fetchedAt: 1_795_600_000.25)
        var scrub = ScrubResult()
        scrub.objects = 2
        scrub.bytesRead = 4096
        report.scrub = scrub

        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .withoutEscapingSlashes]
        let encoded = try JSONSerialization.jsonObject(with: encoder.encode(report)) as? NSDictionary
        let written = try JSONSerialization.jsonObject(with: Data(report.prettyJSON())) as? NSDictionary
        #expect(encoded != nil)
        #expect(written == encoded)
        #expect((written?["totals"] as? NSDictionary)?["connections"] as? Int == 3)
        #expect((written?["link"] as? NSDictionary)?["outages"] as? Int == 2)
        #expect((written?["link"] as? NSDictionary)?["down_seconds"] as? Double == 3.25)
        #expect((written?["manifest"] as? NSDictionary)?["source"] as? String == "stored")
        #expect((written?["scrub"] as? NSDictionary)?["bytes_read"] as? Int == 4096)
        let zipAsset = (written?["assets"] as? [NSDictionary])?.first { $0["kind"] as? String == "archive" }
        #expect((zipAsset?["delta"] as? NSDictionary)?["reused_bytes"] as? Int == 2_485_604)
        #expect(zipAsset?["delta_fallback"] as? String == "integrity_mismatch")
        #expect(zipAsset?["delta_evidence"] == nil)
        let provenAsset = (written?["assets"] as? [NSDictionary])?.first { $0["url"] as? String == "http://e.com/y.zip" }
        #expect(provenAsset?["delta_evidence"] as? String == "digest")
        #expect(String(decoding: report.prettyJSON(), as: UTF8.self).hasPrefix("{\n  \"version\" : \"1.6.0\",\n  \"cache_dir\" : \"/cache/dir\","))
    }
}
