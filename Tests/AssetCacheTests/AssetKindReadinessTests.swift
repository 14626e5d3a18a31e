import Foundation
import Testing
@testable import AssetCache

/// A URL is judged per kind (issue 26, item 6): a run's plan fetches it once with
/// every kind its messages use, whatever their order, and the cache serves a
/// kind only from a copy whose bytes passed that kind's checks — the same for
/// `plan` (``Planner``) and for readiness at display time (``CacheStore/verdict(for:at:)``).
@Suite struct AssetKindReadinessTests {
    static let url = "http://cdn.test/shared"
    static let image = #"{"id": "as-image", "type": "inapp", "data": {"type": "MODAL", "image_url": "http://cdn.test/shared"}}"#
    static let zip = #"{"id": "as-zip", "type": "inapp", "data": {"type": "HTML_FULL", "zipped_assets_url": "http://cdn.test/shared"}}"#
    static let file = #"{"id": "as-file", "type": "inapp", "data": {"type": "HTML", "asset_urls": ["http://cdn.test/shared"]}}"#

    static func manifest(_ triggers: [String]) throws -> Manifest {
        try Manifest.decode(Data(#"{"triggers": [\#(triggers.joined(separator: ","))]}"#.utf8))
    }

    @Test func thePlanFetchesAURLOnceWithEveryKindInEitherOrder() throws {
        for order in [[Self.image, Self.zip, Self.file], [Self.file, Self.zip, Self.image]] {
            let plan = AssetPlan(manifest: try Self.manifest(order), now: 0)
            #expect(plan.fetch.map(\.url.string) == [Self.url])
            #expect(Array(plan.fetch[0].kinds) == [.image, .archive, .file])
            #expect(plan.fetchedRecords == 3)
            #expect(plan.skipped.isEmpty)
        }
    }

    @Test func aKindNoMessagePrefetchesIsSkippedBesideOneThatIsFetched() throws {
        let later = Self.zip.replacingOccurrences(of: #""type": "inapp","#, with: #""type": "inapp", "prefetch": false,"#)
        let plan = AssetPlan(manifest: try Self.manifest([later, Self.image]), now: 0)
        #expect(plan.fetch.map { Array($0.kinds) } == [[.image]])
        #expect(plan.skipped.map { "\($0.url) \($0.kind)" } == ["\(Self.url) archive"])
    }

    @Test func theCacheServesAKindOnlyFromACopyCheckedAsIt() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("kinds-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = try CacheStore.openForWriting(at: root)
        let url = try AssetURL(parsing: Self.url)
        let sha = String(repeating: "cd", count: 32)
        let download = store.temporaryFile("download")
        try Data("bytes".utf8).write(to: URL(fileURLWithPath: download.path))
        _ = try store.commitObject(from: download, sha256: sha)
        var ref = AssetRef(
            url: url.string, object: sha, etag: nil, lastModified: nil, fetchedAt: 1, maxAge: nil, bytes: 5, kind: .image)
        try store.writeRef(ref, for: url)
        let manifest = try Self.manifest([Self.zip, Self.image])

        /// Each message's verdict from the store, after checking that `plan` says the same.
        func verdicts() -> [String: MessageVerdict] {
            let planned = Planner.plan(manifest, store: store, cacheDirectory: root, now: 1)
            var verdicts: [String: MessageVerdict] = [:]
            for (index, action) in manifest.actions.enumerated() {
                let verdict = store.verdict(for: action, at: 1)
                #expect(planned.messages[index].verdict == verdict, "\(action.id)")
                verdicts[action.id] = verdict
            }
            return verdicts
        }
        let notAZip = MessageVerdict.discarded(
            .assetDownloadFailed, detail: "offline_miss: \(Self.url) is not in the cache as a ZIP, only as an image", url: url,
            kind: .offlineMiss)

        // Checked as an image only: an image, not a ZIP.
        var found = verdicts()
        #expect(found["as-image"]?.assets == [.init(url: url, kind: .image, path: store.objectPath(sha))])
        #expect(found["as-zip"] == notAZip)
        #expect(store.cachedState(of: url, as: .archive) == .failed(AssetFailure(.offlineMiss, "\(Self.url) is not in the cache as a ZIP, only as an image")))

        // A ref that says it passed as a ZIP too is no ZIP without its unpacked tree.
        ref.passedKinds = AssetKinds([.image, .archive])
        try store.writeRef(ref, for: url)
        found = verdicts()
        #expect(found["as-image"]?.status == .ready)
        #expect(found["as-zip"] == notAZip)

        // With the tree, each kind gets its own file.
        // (Put in place by hand: readiness asks only whether the tree is there.)
        try FileManager.default.createDirectory(atPath: store.treePath(sha), withIntermediateDirectories: true)
        try Data("<p>".utf8).write(to: URL(fileURLWithPath: "\(store.treePath(sha))/index.html"))
        found = verdicts()
        #expect(found["as-image"]?.assets == [.init(url: url, kind: .image, path: store.objectPath(sha))])
        #expect(found["as-zip"]?.assets == [.init(url: url, kind: .archive, path: store.treePath(sha))])
        // Nor is either of them thereby a file of an HTML message.
        #expect(store.cachedState(of: url, as: .file) == .failed(AssetFailure(
            .offlineMiss, "\(Self.url) is not in the cache as a file, only as an image and a ZIP")))
    }
}
