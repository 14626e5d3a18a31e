// An app that embeds AssetCache: prefetch a manifest's assets into a cache,
// then ask whether one message is ready and print its local file.
//
//     swift run EmbedPrefetch MANIFEST.json CACHE_DIR MESSAGE_ID
//
// Exit 0 when the message is ready, 1 when it is not, 2 for bad input.
import AssetCache
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: EmbedPrefetch MANIFEST.json CACHE_DIR MESSAGE_ID\n".utf8))
    exit(2)
}
let (manifestPath, cacheDirectory, messageID) = (arguments[0], arguments[1], arguments[2])

do {
    // 1. The manifest, as the server sent it.
    let manifest = try Manifest.decode(try Data(contentsOf: URL(fileURLWithPath: manifestPath)))

    // 2. Prefetch every asset into the cache. Writers hold the cache's lock
    //    while the store is open, so a cron run of `prefetch` cannot overlap.
    let store = try CacheStore.openForWriting(at: cacheDirectory)
    var options = PrefetchOptions()
    options.transfer.concurrency = 4
    options.progress = { progress in
        if progress.finished != nil, progress.completedAssets == progress.totalAssets {
            print("fetched \(progress.totalAssets) assets, \(progress.failedAssets) failed")
        }
    }
    let report = try await Prefetcher(store: store, options: options).run(manifest)
    print("\(report.totals.ready) of \(report.totals.messages) messages ready")

    // 3. At display time: is this message ready, and where are its files?
    guard let action = manifest.actions.first(where: { $0.id == messageID }) else {
        print("\(messageID): no such message in the manifest")
        exit(2)
    }
    let verdict = store.verdict(for: action)
    if verdict.status == .ready {
        let file = verdict.assets.first?.path ?? "(no assets)"
        print("\(messageID): ready: \(file)")
    } else {
        let reason = verdict.reason?.rawValue ?? verdict.status.rawValue
        print("\(messageID): \(verdict.status.rawValue): \(reason)")
        exit(1)
    }
} catch {
    FileHandle.standardError.write(Data("EmbedPrefetch: \(error)\n".utf8))
    exit(2)
}
