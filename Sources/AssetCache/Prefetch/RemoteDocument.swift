import Foundation

/// A remote manifest or its signature as this run will use it: the cached
/// copy while fresh, else what a (conditional) GET brought. Nothing is
/// written to the cache until `commit`, so a refused manifest leaves the
/// cache as it was.
struct RemoteDocument {
    enum Source {
        case fresh(CachedCopy)
        case revalidated(CachedCopy, ResponseHeaders)
        case downloaded(path: String, TransferResult)
    }

    let url: AssetURL
    let source: Source

    /// The file holding its bytes.
    var path: String {
        switch source {
        case .fresh(let cached), .revalidated(let cached, _): cached.path
        case .downloaded(let path, _): path
        }
    }

    /// Its bytes; nil when the file cannot be read.
    func contents() -> Data? {
        FileManager.default.contents(atPath: path)
    }

    /// Stores what the request brought: a 304's new freshness, or a new object and ref.
    func commit(to store: CacheStore, at now: Double) throws(StoreError) {
        switch source {
        case .fresh:
            return
        case .revalidated(let cached, let headers):
            try store.writeRef(cached.revalidated(by: headers, at: now), for: url)
        case .downloaded(let path, let result):
            _ = try store.commitObject(from: path, sha256: result.sha256)
            let freshness = Freshness(headers: result.headers, receivedAt: now)
            let ref = AssetRef(
                url: url.string, object: result.sha256, etag: result.headers.etag, lastModified: result.headers.lastModified,
                fetchedAt: now, maxAge: freshness.lifetime, bytes: result.bytes, kind: .file)
            if freshness.mayStore { try store.writeRef(ref, for: url) }
        }
    }
}
