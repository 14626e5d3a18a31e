#if canImport(Glibc)
import Glibc
#endif

/// Validation of one downloaded body: integrity, then image or archive checks
/// (a ZIP unpacked into `tmp/`), kind by kind. Validation is CPU work for the
/// validation pool. What passed becomes the entry (``commitEntry(for:)``) that
/// the group commit (``GroupCommit``) makes durable and visible: the object, its
/// unpacked tree and, last, the ref.
struct AssetValidator {
    let store: CacheStore
    let options: PrefetchOptions
    let integrity: [AssetURL: [UInt8]]
    let now: Double

    /// A body that passed the checks of at least one of its kinds, with its
    /// unpacked tree when it passed as a ZIP, not yet in the store.
    struct Validated: Sendable {
        var item: AssetPlan.Item
        var download: FileLocation
        var tree: FileLocation?
        /// The tree's digest list (``TreeDigestList``), in `tmp/` beside it.
        var treeDigests: FileLocation?
        var result: TransferResult
        /// The kinds whose checks it passed: what its ref vouches for.
        var passed: AssetKinds
        /// What unpacking the ZIP wrote and linked, when this run unpacked it.
        var unpack: UnpackTally?
    }

    /// What the checks of each kind the item is used as made of one body.
    struct Checked: Sendable {
        /// nil when no kind passed; the download and any tree are then gone.
        var valid: Validated?
        /// Why each kind that did not pass failed.
        var failures: [AssetKind: AssetFailure]

        static func failed(_ item: AssetPlan.Item, _ failure: AssetFailure) -> Checked {
            Checked(valid: nil, failures: Dictionary(uniqueKeysWithValues: item.kinds.map { ($0, failure) }))
        }

        /// A kind failed for want of room (a full disk, the free-space floor):
        /// the download is kept, for the caller to make room and check again
        /// or to remove.
        var lacksSpace: Bool { failures.values.contains(where: \.lacksSpace) }
    }

    /// Checks the body as each kind the item is used as, each on its own: bytes
    /// that decode as an image are not thereby a ZIP, nor the other way round.
    /// Integrity is of the bytes, so a mismatch fails every kind. `previous`
    /// names the URL's cached ZIP, whose tree lends the new one its unchanged files.
    /// `space`: what a ZIP's unpacking must claim first, under a free-space floor.
    func validate(
        _ item: AssetPlan.Item, download: FileLocation, result: TransferResult, previous: String? = nil, space: SpaceClaim? = nil
    ) -> Checked {
        let tmp = download.directory
        // An empty body never triggered the write callback, so no file was made.
        if tmp.status(download.name) == nil, let fd = try? tmp.openFile(download.name, O_CREAT | O_WRONLY, mode: 0o600) { close(fd) }
        var tree: FileLocation?
        var treeDigests: FileLocation?
        var passed = AssetKinds()
        var unpack: UnpackTally?
        var lacksSpace = false
        defer {
            if passed.isEmpty {
                if !lacksSpace { tmp.unlink(download.name) }
                if let tree { try? tree.directory.remove(tree.name) }
                if let treeDigests { tmp.unlink(treeDigests.name) }
            }
        }
        if let pin = integrity[item.url], CacheStore.hex(pin) != result.sha256 {
            return .failed(item, .integrityMismatch(of: "\(item.url)", sha256: result.sha256, pin: pin))
        }
        // The validators take paths: each gets one that means this very file.
        let failures = download.withStablePath { path -> [AssetKind: AssetFailure] in
            // An image and a file that is an image are one decode.
            var image: Result<Void, AssetFailure>?
            func decodedImage() -> Result<Void, AssetFailure> {
                if let image { return image }
                let decoded = Result { () throws(AssetFailure) in try decodeImage(path: path) }
                image = decoded
                return decoded
            }
            var failures: [AssetKind: AssetFailure] = [:]
            for kind in item.kinds {
                let check: Result<Void, AssetFailure>
                switch kind {
                case .image:
                    check = decodedImage()
                case .file:
                    check = ImageValidator.sniff(path: path) != nil ? decodedImage() : .success(())
                case .archive:
                    if store.hasTree(result.sha256) {
                        check = .success(())
                    } else {
                        let unpacked = store.temporaryFile("tree")
                        let previousTree = previous.flatMap { $0 == result.sha256 ? nil : store.openTree($0) }
                        let room = space.map { claim in { (bytes: Int64, files: Int) in claim.ensure(claim.floor.onDisk(bytes, files: files)) } }
                        check = ArchiveUnpacker.unpack(
                            zipPath: path, into: unpacked, previous: previousTree, limits: options.archive, room: room)
                            .flatMap { info in
                                unpack = UnpackTally(info)
                                return writeDigestList(info.digests).map { treeDigests = $0 }
                            }
                        if case .success = check {
                            tree = unpacked
                        } else {
                            // Whatever it unpacked before it stopped goes; other kinds may still pass.
                            try? unpacked.directory.remove(unpacked.name)
                        }
                    }
                }
                switch check {
                case .success: passed.insert(kind)
                case .failure(let failure): failures[kind] = failure
                }
            }
            return failures
        }
        guard let failures else {
            return .failed(item, AssetFailure(.storage, "cannot open \(download.path): \(String(cString: strerror(errno)))"))
        }
        guard !passed.isEmpty else {
            lacksSpace = failures.values.contains(where: \.lacksSpace)
            return Checked(valid: nil, failures: failures)
        }
        return Checked(
            valid: Validated(
                item: item, download: download, tree: tree, treeDigests: treeDigests, result: result, passed: passed, unpack: unpack),
            failures: failures)
    }

    /// Flushed with the tree by its batch, like the ref files.
    private func writeDigestList(_ files: [TreeDigestList.File]) -> Result<FileLocation, AssetFailure> {
        do throws(FileSystem.Failure) {
            let name = try FileSystem.writeTemporary(TreeDigestList.encode(files), in: store.tmp, mode: 0o644, sync: false)
            return .success(FileLocation(store.tmp, name))
        } catch {
            return .failure(AssetFailure(.storage, "cannot write the tree's digest list: \(error)"))
        }
    }

    private func decodeImage(path: String) throws(AssetFailure) {
        _ = try ImageValidator.validate(path: path, limits: options.image).get()
    }

    /// The entry for the group commit; no ref for a `no-store` response, whose
    /// bytes serve this session only: the next `gc` sweeps them and the next run
    /// fetches again.
    func commitEntry(for validated: Validated) -> PendingCommit {
        let item = validated.item
        let result = validated.result
        let freshness = Freshness(headers: result.headers, receivedAt: now)
        let ref = freshness.mayStore ? AssetRef(
            url: item.url.string, object: result.sha256, etag: result.headers.etag,
            lastModified: result.headers.lastModified, fetchedAt: now, maxAge: freshness.lifetime,
            bytes: result.bytes, kinds: validated.passed, acceptsRanges: result.headers.acceptsByteRanges) : nil
        return PendingCommit(
            url: item.url, download: validated.download, sha256: result.sha256, tree: validated.tree,
            treeDigests: validated.treeDigests, ref: ref)
    }

    /// Where a committed asset is as `kind`: its object, or for a ZIP its tree.
    func localPath(_ validated: Validated, as kind: AssetKind) -> String {
        kind == .archive ? store.treePath(validated.result.sha256) : store.objectPath(validated.result.sha256)
    }
}

extension Freshness {
    init(headers: ResponseHeaders, receivedAt: Double) {
        self.init(
            cacheControl: headers.cacheControl, expires: headers.expires, date: headers.date, age: headers.age,
            lastModified: headers.lastModified, receivedAt: receivedAt)
    }
}
