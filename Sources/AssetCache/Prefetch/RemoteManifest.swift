import Foundation
import Glibc

/// A manifest served over http(s), as cron jobs use it: fetched through the same
/// transfer stack and limits as assets, cached and revalidated like one.
public enum RemoteManifest {
    public enum Failure: Error, Sendable, CustomStringConvertible {
        /// Could not be fetched: nothing was changed (exit 69).
        case unavailable(String)
        case invalid(ManifestError)
        case storage(String)

        public var description: String {
            switch self {
            case .unavailable(let message): "the manifest could not be fetched: \(message)"
            case .invalid(let error): error.description
            case .storage(let message): "cache storage failed: \(message)"
            }
        }
    }

    public static func fetch(_ raw: String, store: CacheStore, limits: TransferLimits, now: Double = Date().timeIntervalSince1970) async throws(Failure) -> Manifest {
        let url: AssetURL
        do {
            url = try AssetURL(parsing: raw)
        } catch {
            throw .unavailable("'\(raw)' is not an http(s) URL")
        }
        let cached = CachedCopy(store: store, url: url)
        if let cached, cached.isFresh(at: now) {
            return try decode(store.objectContents(cached.ref.object))
        }
        var limits = limits
        limits.maxAssetSize = Int64(Manifest.maxSize)
        let engine: TransferEngine
        do {
            engine = try TransferEngine(limits: limits)
        } catch {
            throw .unavailable("\(error)")
        }
        defer { engine.shutdown() }
        let download = store.temporaryFile("manifest")
        defer { download.directory.unlink(download.name) }
        let result = await engine.fetch(TransferRequest(url: url.string, location: download, headers: cached?.conditionalHeaders ?? []))

        if let cached, result.status == 304 {
            let manifest = try decode(store.objectContents(cached.ref.object))
            try write { () throws(StoreError) in try store.writeRef(cached.revalidated(by: result.headers, at: now), for: url) }
            return manifest
        }
        if let failure = result.failure { throw .unavailable(failure.message) }
        let manifest = try decode(download.directory.contents(of: download.name, limit: Manifest.maxSize))
        let freshness = Freshness(headers: result.headers, receivedAt: now)
        try write { () throws(StoreError) in
            _ = try store.commitObject(from: download, sha256: result.sha256)
            let ref = AssetRef(
                url: url.string, object: result.sha256, etag: result.headers.etag, lastModified: result.headers.lastModified,
                fetchedAt: now, maxAge: freshness.lifetime, bytes: result.bytes, kind: .file)
            if freshness.mayStore { try store.writeRef(ref, for: url) }
        }
        return manifest
    }

    private static func decode(_ bytes: [UInt8]?) throws(Failure) -> Manifest {
        let data = Data(bytes ?? [])
        do {
            return try Manifest.decode(data)
        } catch {
            throw .invalid(error)
        }
    }

    private static func write(_ body: () throws(StoreError) -> Void) throws(Failure) {
        do {
            try body()
        } catch {
            throw .storage(error.description)
        }
    }
}
