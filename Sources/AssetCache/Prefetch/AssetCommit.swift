#if canImport(Glibc)
import Glibc
#endif

/// Validation and commit of one downloaded body: integrity, image or archive checks,
/// then the object (and its unpacked tree) into the store and, last, the ref.
/// Validation is CPU work for the validation pool; the commit is the group
/// commit's (``GroupCommit``).
struct AssetCommit {
    let store: CacheStore
    let options: PrefetchOptions
    let integrity: [AssetURL: [UInt8]]
    let now: Double
    /// 10% of a session's URLs may serve bytes another URL already served.
    let decoded = DecodedContents()

    /// A body that passed validation, with its unpacked tree, not yet in the store.
    struct Validated: Sendable {
        var item: AssetPlan.Item
        var download: FileLocation
        var tree: FileLocation?
        /// The tree's digest list (``TreeDigestList``), in `tmp/` beside it.
        var treeDigests: FileLocation?
        var result: TransferResult
    }

    /// On failure the download and any unpacked tree are gone.
    func validate(_ item: AssetPlan.Item, download: FileLocation, result: TransferResult) -> Result<Validated, AssetFailure> {
        let tmp = download.directory
        // An empty body never triggered the write callback, so no file was made.
        if tmp.status(download.name) == nil, let fd = try? tmp.openFile(download.name, O_CREAT | O_WRONLY, mode: 0o600) { close(fd) }
        var tree: FileLocation?
        var treeDigests: FileLocation?
        var valid = false
        defer {
            if !valid {
                tmp.unlink(download.name)
                if let tree { try? tree.directory.remove(tree.name) }
                if let treeDigests { tmp.unlink(treeDigests.name) }
            }
        }
        if let pin = integrity[item.url], CacheStore.hex(pin) != result.sha256 {
            return .failure(.integrityMismatch(of: "\(item.url)", sha256: result.sha256, pin: pin))
        }
        // The validators take paths: each gets one that means this very file.
        let checked = download.withStablePath { path -> Result<Void, AssetFailure> in
            do throws(AssetFailure) {
                switch item.kind {
                case .image:
                    try decodeImage(path: path, sha256: result.sha256)
                case .file:
                    if ImageValidator.sniff(path: path) != nil {
                        try decodeImage(path: path, sha256: result.sha256)
                    }
                case .archive:
                    if !store.hasTree(result.sha256) {
                        let unpacked = store.temporaryFile("tree")
                        tree = unpacked
                        let info = try ArchiveUnpacker.unpack(zipPath: path, into: unpacked, limits: options.archive).get()
                        treeDigests = try writeDigestList(info.digests)
                    }
                }
            } catch {
                return .failure(error)
            }
            return .success(())
        }
        switch checked {
        case nil:
            return .failure(AssetFailure(.storage, "cannot open \(download.path): \(String(cString: strerror(errno)))"))
        case .failure(let failure)?:
            return .failure(failure)
        case .success?:
            valid = true
            return .success(Validated(item: item, download: download, tree: tree, treeDigests: treeDigests, result: result))
        }
    }

    /// Flushed with the tree by its batch, like the ref files.
    private func writeDigestList(_ files: [TreeDigestList.File]) throws(AssetFailure) -> FileLocation {
        do throws(FileSystem.Failure) {
            let name = try FileSystem.writeTemporary(TreeDigestList.encode(files), in: store.tmp, mode: 0o644, sync: false)
            return FileLocation(store.tmp, name)
        } catch {
            throw AssetFailure(.storage, "cannot write the tree's digest list: \(error)")
        }
    }

    /// The bytes were hashed as they arrived, so equal hashes mean the very bytes
    /// an earlier decode of this run passed, under the same limits.
    private func decodeImage(path: String, sha256: String) throws(AssetFailure) {
        if decoded.containsImage(sha256) { return }
        _ = try ImageValidator.validate(path: path, limits: options.image).get()
        decoded.insertImage(sha256)
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
        return PendingCommit(
            url: item.url, download: validated.download, sha256: result.sha256, tree: validated.tree,
            treeDigests: validated.treeDigests, ref: ref)
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
