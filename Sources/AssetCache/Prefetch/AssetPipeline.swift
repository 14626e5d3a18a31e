import Foundation
import Glibc

/// The life of one asset URL in a run: download into `tmp/`, validate, commit the
/// object (and its unpacked tree), then write the ref.
struct AssetPipeline: Sendable {
    let store: CacheStore
    let engine: TransferEngine
    let pool: ValidationPool
    let options: PrefetchOptions
    let integrity: [AssetURL: [UInt8]]
    let started: ContinuousClock.Instant
    let now: Double

    func process(_ item: AssetPlan.Item) async -> AssetRecord {
        let download = store.temporaryPath("download")
        let result = await engine.fetch(TransferRequest(url: item.url.string, destination: download, priority: item.priority))
        if let failure = result.failure {
            unlink(download)
            return .failed(item, failure, attempts: result.attempts, finishedMs: elapsedMs())
        }
        let committed = await pool.run { [self] in commit(item, download: download, result: result) }
        switch committed {
        case .success(let path):
            return AssetRecord(
                url: item.url, kind: item.kind, outcome: .downloaded, sha256: result.sha256, bytes: result.bytes,
                path: path, attempts: result.attempts, failure: nil, finishedMs: elapsedMs())
        case .failure(let failure):
            return .failed(item, failure, attempts: result.attempts, finishedMs: elapsedMs())
        }
    }

    private func commit(_ item: AssetPlan.Item, download: String, result: TransferResult) -> Result<String, AssetFailure> {
        // An empty body never triggered the write callback, so no file was made.
        if !FileSystem.exists(download) { close(open(download, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)) }
        var tree: String?
        defer {
            unlink(download)
            if let tree { FileSystem.remove(tree) }
        }
        if let expected = integrity[item.url], CacheStore.hex(expected) != result.sha256 {
            return .failure(AssetFailure(.integrityMismatch,
                "SHA-256 of \(item.url) is \(result.sha256), the manifest's integrity expects \(CacheStore.hex(expected))"))
        }
        do throws(AssetFailure) {
            switch item.kind {
            case .image:
                _ = try ImageValidator.validate(path: download, limits: options.image).get()
            case .file:
                if ImageValidator.sniff(path: download) != nil {
                    _ = try ImageValidator.validate(path: download, limits: options.image).get()
                }
            case .archive:
                if !FileSystem.exists(store.treePath(result.sha256)) {
                    let unpacked = store.temporaryPath("tree")
                    tree = unpacked
                    _ = try ArchiveUnpacker.unpack(zipPath: download, into: unpacked, limits: options.archive).get()
                }
            }
        } catch {
            return .failure(error)
        }
        do {
            let object = try store.commitObject(from: download, sha256: result.sha256)
            var path = object
            if item.kind == .archive {
                if let unpacked = tree {
                    path = try store.commitTree(from: unpacked, sha256: result.sha256)
                    tree = nil
                } else {
                    path = store.treePath(result.sha256)
                }
            }
            let ref = AssetRef(
                url: item.url.string, object: result.sha256, etag: result.headers.etag,
                lastModified: result.headers.lastModified, fetchedAt: now, maxAge: nil,
                bytes: result.bytes, kind: item.kind)
            try store.writeRef(ref, for: item.url)
            return .success(path)
        } catch {
            return .failure(AssetFailure(.storage, error.description))
        }
    }

    func elapsedMs() -> Int {
        let elapsed = ContinuousClock.now - started
        return Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
    }
}
