#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RemoteManifest {
    /// The copy of the manifest at `raw` that an earlier run stored, read as
    /// `plan` reads a cache: no request, no write, no lock. With `trustedKeys`,
    /// the signature stored with it must vouch for its bytes, as for `run
    /// --offline`; the version, audience and expiry are the caller's to judge
    /// against the cache's trust records. nil when no copy is stored.
    public static func stored(
        _ raw: String, store: CacheStore, trustedKeys: TrustedKeys? = nil
    ) throws(Failure) -> (manifest: Manifest, bytes: Data)? {
        let url: AssetURL
        do {
            url = try AssetURL(parsing: raw)
        } catch {
            throw .unavailable("'\(raw)' is not an http(s) URL")
        }
        guard let copy = CachedCopy(store: store, url: url), let data = store.objectContents(copy.ref.object).map({ Data($0) }) else {
            return nil
        }
        if let trustedKeys {
            let signatureURL = signatureURL(of: url)
            guard let signature = CachedCopy(store: store, url: signatureURL).flatMap({ store.objectContents($0.ref.object) }) else {
                throw .signatureUnavailable(url: signatureURL.string, reason: "no copy of it is stored")
            }
            do {
                try trustedKeys.verify(data, signature: Data(signature), name: signatureURL.string)
            } catch {
                throw .refused(error)
            }
        }
        var manifest: Manifest
        do {
            manifest = try Manifest.decode(data)
        } catch {
            throw .invalid(error)
        }
        manifest.origin = ManifestOrigin(url: url.redacted, source: .stored, fetchedAt: copy.ref.fetchedAt)
        manifest.indexed = IndexedManifest(
            url: url.redacted, sha256: copy.ref.object, signed: trustedKeys != nil, source: .stored, fetchedAt: copy.ref.fetchedAt)
        return (manifest, data)
    }
}
