import Glibc

/// Validation and commit of one downloaded body: integrity, image or archive checks,
/// then the object (and its unpacked tree) into the store and, last, the ref.
/// Runs on the validation pool: it blocks on disk and CPU.
struct AssetCommit {
    let store: CacheStore
    let options: PrefetchOptions
    let integrity: [AssetURL: [UInt8]]
    let now: Double

    /// The local path (object, or tree for a ZIP) on success.
    func commit(_ item: AssetPlan.Item, download: String, result: TransferResult) -> Result<String, AssetFailure> {
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
            let freshness = Freshness(headers: result.headers, receivedAt: now)
            // `no-store`: the bytes serve this session only; no ref names them, so
            // the next `gc` sweeps them and the next run fetches again.
            if freshness.mayStore {
                let ref = AssetRef(
                    url: item.url.string, object: result.sha256, etag: result.headers.etag,
                    lastModified: result.headers.lastModified, fetchedAt: now, maxAge: freshness.lifetime,
                    bytes: result.bytes, kind: item.kind)
                try store.writeRef(ref, for: item.url)
            }
            return .success(path)
        } catch {
            return .failure(AssetFailure(.storage, error.description))
        }
    }
}

extension Freshness {
    init(headers: ResponseHeaders, receivedAt: Double) {
        self.init(
            cacheControl: headers.cacheControl, expires: headers.expires, date: headers.date, age: headers.age,
            lastModified: headers.lastModified, receivedAt: receivedAt)
    }
}
