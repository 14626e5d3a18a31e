import Glibc

/// Validation and commit of one downloaded body: integrity, image or archive checks,
/// then the object (and its unpacked tree) into the store and, last, the ref.
/// Validation is CPU work for the validation pool; the commit waits on fsync and
/// runs on the commit pool, whose many threads let the filesystem's journal share
/// one commit among several waiting files.
struct AssetCommit {
    let store: CacheStore
    let options: PrefetchOptions
    let integrity: [AssetURL: [UInt8]]
    let now: Double

    /// A body that passed validation, with its unpacked tree, not yet in the store.
    struct Validated: Sendable {
        var item: AssetPlan.Item
        var download: FileLocation
        var tree: FileLocation?
        var result: TransferResult
    }

    /// On failure the download and any unpacked tree are gone.
    func validate(_ item: AssetPlan.Item, download: FileLocation, result: TransferResult) -> Result<Validated, AssetFailure> {
        let tmp = download.directory
        // An empty body never triggered the write callback, so no file was made.
        if tmp.status(download.name) == nil, let fd = try? tmp.openFile(download.name, O_CREAT | O_WRONLY, mode: 0o600) { close(fd) }
        var tree: FileLocation?
        var valid = false
        defer {
            if !valid {
                tmp.unlink(download.name)
                if let tree { try? tree.directory.remove(tree.name) }
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
                    _ = try ImageValidator.validate(path: path, limits: options.image).get()
                case .file:
                    if ImageValidator.sniff(path: path) != nil {
                        _ = try ImageValidator.validate(path: path, limits: options.image).get()
                    }
                case .archive:
                    if !store.hasTree(result.sha256) {
                        let unpacked = store.temporaryFile("tree")
                        tree = unpacked
                        _ = try ArchiveUnpacker.unpack(zipPath: path, into: unpacked, limits: options.archive).get()
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
            return .success(Validated(item: item, download: download, tree: tree, result: result))
        }
    }

    /// The local path (object, or tree for a ZIP) on success.
    func commit(_ validated: Validated) -> Result<String, AssetFailure> {
        let item = validated.item
        let result = validated.result
        let download = validated.download
        var tree = validated.tree
        defer {
            download.directory.unlink(download.name)
            if let tree { try? tree.directory.remove(tree.name) }
        }
        do {
            let object = try store.commitObject(from: download, sha256: result.sha256)
            var path = object
            if item.kind == .archive {
                if let unpacked = tree {
                    // From here the store commits the tree or removes it whole.
                    tree = nil
                    path = try store.commitTree(from: unpacked, sha256: result.sha256)
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
