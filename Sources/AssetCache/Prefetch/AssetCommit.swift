import Glibc

/// Validation and commit of one downloaded body: integrity, image or archive checks,
/// then the object (and its unpacked tree) into the store and, last, the ref.
/// Validation is CPU work for the validation pool; the commit is the group
/// commit's (``GroupCommit``).
struct AssetCommit {
    let store: CacheStore
    let options: PrefetchOptions
    let integrity: [AssetURL: [UInt8]]
    let now: Double

    /// A body that passed validation, with its unpacked tree, not yet in the store.
    struct Validated: Sendable {
        var item: AssetPlan.Item
        var download: String
        var tree: String?
        var result: TransferResult
    }

    /// On failure the download and any unpacked tree are gone.
    func validate(_ item: AssetPlan.Item, download: String, result: TransferResult) -> Result<Validated, AssetFailure> {
        // An empty body never triggered the write callback, so no file was made.
        if !FileSystem.exists(download) { close(open(download, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)) }
        var tree: String?
        var valid = false
        defer {
            if !valid {
                unlink(download)
                if let tree { FileSystem.remove(tree) }
            }
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
        valid = true
        return .success(Validated(item: item, download: download, tree: tree, result: result))
    }

    /// The entry for the group commit; no ref for a `no-store` response, whose
    /// bytes serve this session only: the next `gc` sweeps them and the next run
    /// fetches again.
    func pending(_ validated: Validated) -> PendingCommit {
        let item = validated.item
        let result = validated.result
        let freshness = Freshness(headers: result.headers, receivedAt: now)
        let ref = freshness.mayStore ? AssetRef(
            url: item.url.string, object: result.sha256, etag: result.headers.etag,
            lastModified: result.headers.lastModified, fetchedAt: now, maxAge: freshness.lifetime,
            bytes: result.bytes, kind: item.kind) : nil
        return PendingCommit(url: item.url, download: validated.download, sha256: result.sha256, tree: validated.tree, ref: ref)
    }

    /// Where a committed asset is: its object, or for a ZIP its tree.
    func localPath(_ validated: Validated) -> String {
        validated.item.kind == .archive ? store.treePath(validated.result.sha256) : store.objectPath(validated.result.sha256)
    }
}

extension Freshness {
    init(headers: ResponseHeaders, receivedAt: Double) {
        self.init(
            cacheControl: headers.cacheControl, expires: headers.expires, date: headers.date, age: headers.age,
            lastModified: headers.lastModified, receivedAt: receivedAt)
    }
}
