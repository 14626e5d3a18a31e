#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A remote manifest or its signature as this run will use it: the cached
/// copy a 304 confirmed, or what a GET brought. Nothing is
/// written to the cache until `commit`, so a refused manifest leaves the
/// cache as it was.
struct RemoteDocument {
    enum Source {
        case revalidated(CachedCopy, ResponseHeaders)
        case downloaded(FileLocation, TransferResult)
        /// The copy stored by an earlier run, used without asking the server
        /// (`--offline`, or the server could not be reached).
        case stored(CachedCopy)
    }

    let url: AssetURL
    let source: Source

    /// Its bytes (a manifest's at most); nil when they cannot be read.
    func contents(in store: CacheStore) -> Data? {
        let bytes = switch source {
        case .revalidated(let cached, _), .stored(let cached): store.objectContents(cached.ref.object)
        case .downloaded(let location, _): location.directory.contents(of: location.name, limit: Manifest.maxSize)
        }
        return bytes.map { Data($0) }
    }

    /// Stores what the request brought: a 304's new freshness, or a new object
    /// and ref. A 304 that changed no validator is remembered with the run's
    /// state, as an asset's (``Revalidation``): its time is when the server last
    /// confirmed the copy, which the stored manifest's `fetched_at` reports.
    func commit(to store: CacheStore, at now: Double) throws(StoreError) {
        switch source {
        case .stored:
            break
        case .revalidated(let cached, let headers):
            let ref = cached.revalidated(by: headers, at: now)
            guard ref.onlyFreshnessDiffers(from: cached.ref) else { return try store.writeRef(ref, for: url) }
            store.recordRevalidation(for: url, of: cached.ref, at: now, maxAge: ref.maxAge ?? 0)
        case .downloaded(let location, let result):
            _ = try store.commitObject(from: location, sha256: result.sha256)
            let freshness = Freshness(headers: result.headers, receivedAt: now)
            let ref = AssetRef(
                url: url.string, object: result.sha256, etag: result.headers.etag, lastModified: result.headers.lastModified,
                fetchedAt: now, maxAge: freshness.lifetime, bytes: result.bytes, kind: .file)
            if freshness.mayStore { try store.writeRef(ref, for: url) }
        }
    }
}
