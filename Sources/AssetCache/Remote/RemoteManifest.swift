import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Logging

/// A manifest served over http(s), as cron jobs use it: fetched through the same
/// transfer stack as assets, and revalidated on every run. With trusted keys,
/// its signature (`URL.sig`) is fetched with it and checked before the manifest
/// is read, then its version, expiry and audience (``ManifestTrust``); nothing
/// is stored unless all pass, and what the device then trusts is stored first.
public enum RemoteManifest {
    public enum Failure: Error, Sendable, CustomStringConvertible {
        /// Could not be fetched: nothing was changed (exit 69).
        case unavailable(String)
        /// Its signature could not be fetched: nothing was changed (exit 69).
        case signatureUnavailable(url: String, reason: String)
        /// Its signature does not vouch for it: nothing was changed (exit 2).
        case refused(ManifestSignatureError)
        /// Signed, but not the newest, not for this device, or expired (exit 2).
        case untrusted(ManifestTrustError)
        case invalid(ManifestError)
        case storage(String)

        public var description: String {
            switch self {
            case .unavailable(let message): "the manifest could not be fetched: \(message)"
            case .signatureUnavailable(let url, let reason): "signature missing: \(url) could not be fetched: \(reason)"
            case .refused(let error): error.description
            case .untrusted(let error): error.description
            case .invalid(let error): error.description
            case .storage(let message): "cache storage failed: \(message)"
            }
        }
    }

    /// `headers` ("Name: value") go with the requests to the manifest's own
    /// origin only (the manifest and its signature), never elsewhere. With
    /// `trustedKeys`, `channels` are the audiences besides the URL itself.
    ///
    /// `offline`: no request at all; the copy an earlier run stored is used,
    /// whatever its age. Online, when the manifest cannot be had for a reason
    /// the server or the network may recover from (refused, DNS, timeout, 408,
    /// 429, 5xx), the stored copy stands in, with a warning: a device keeps
    /// its messages exactly when its network is worst. Either way a stored
    /// copy passes the same checks as a fetched one (its stored signature,
    /// version, audience and expiry); without one, the failure stands.
    public static func fetch(
        _ raw: String, store: CacheStore, limits: TransferLimits, headers: [String] = [], trustedKeys: TrustedKeys? = nil,
        channels: [String] = [], runDeadline: RunDeadline? = nil, offline: Bool = false,
        logger: Logger = Logger(label: "AssetCache", factory: { _ in SwiftLogNoOpLogHandler() }),
        now: Double = Date().timeIntervalSince1970
    ) async throws(Failure) -> Manifest {
        let url: AssetURL
        do {
            url = try AssetURL(parsing: raw)
        } catch {
            throw .unavailable("'\(raw)' is not an http(s) URL")
        }
        let fetcher = RemoteDocumentFetcher(
            store: store, limits: limits, headers: headers, origin: url, logger: logger, runDeadline: runDeadline)
        defer { fetcher.close() }

        let manifest: RemoteDocument
        if offline {
            guard let stored = CachedCopy(store: store, url: url) else {
                throw .unavailable("offline, and no copy of \(url) is stored: run once online first")
            }
            manifest = RemoteDocument(url: url, source: .stored(stored))
        } else {
            do {
                manifest = try await fetcher.revalidate(url, now: now)
            } catch where error.isTransient {
                guard let stored = CachedCopy(store: store, url: url) else { throw .unavailable(error.message) }
                logger.warning("""
                    the manifest could not be fetched (\(error.message)); using the copy stored \
                    \(RFC3339Date.format(stored.ref.fetchedAt))
                    """)
                manifest = RemoteDocument(url: url, source: .stored(stored))
            } catch {
                throw .unavailable(error.message)
            }
        }
        let data = manifest.contents(in: store) ?? Data()
        let storedCopy: CachedCopy? = if case .stored(let copy) = manifest.source { copy } else { nil }
        var signature: RemoteDocument?
        if let trustedKeys {
            let signatureURL = signatureURL(of: url)
            if storedCopy != nil {
                // The signature stored with that copy: the pair was checked together.
                signature = CachedCopy(store: store, url: signatureURL).map { RemoteDocument(url: signatureURL, source: .stored($0)) }
                if signature == nil {
                    throw .signatureUnavailable(url: signatureURL.string, reason: "no copy of it is stored")
                }
            } else {
                do {
                    signature = try await fetcher.download(signatureURL)
                } catch {
                    throw .signatureUnavailable(url: signatureURL.string, reason: error.message)
                }
            }
            do {
                try trustedKeys.verify(data, signature: signature?.contents(in: store), name: signatureURL.string)
            } catch {
                throw .refused(error)
            }
        }
        var decoded: Manifest
        do {
            decoded = try Manifest.decode(data)
        } catch {
            throw .invalid(error)
        }
        if trustedKeys != nil {
            let trust = ManifestTrust(store: store, url: url.string, channels: channels, clock: now, logger: logger)
            do {
                let acceptance = try trust.judge(decoded, bytes: data, store: store)
                try trust.keep(acceptance, in: store, manifest: &decoded)
            } catch let error as ManifestTrustError {
                throw .untrusted(error)
            } catch let error as StoreError {
                throw .storage(error.description)
            } catch {
                throw .storage("\(error)")
            }
        }
        do {
            try manifest.commit(to: store, at: now)
            try signature?.commit(to: store, at: now)
            try store.rememberManifest(refs: [manifest.url, signature?.url].compactMap { $0.map(store.refName(for:)) }, now: now)
        } catch {
            throw .storage(error.description)
        }
        decoded.origin = ManifestOrigin(
            url: url.redacted, source: storedCopy == nil ? .fetched : .stored, fetchedAt: storedCopy?.ref.fetchedAt ?? now)
        decoded.indexed = IndexedManifest(
            url: url.redacted, sha256: CacheStore.hex(SHA256.hash(data: data)), signed: trustedKeys != nil,
            source: storedCopy == nil ? .fetched : .stored, fetchedAt: decoded.origin?.fetchedAt)
        return decoded
    }

    /// `URL.sig`: `.sig` ends the path, and the query stays, so that a
    /// signed-URL token or version parameter applies to both.
    public static func signatureURL(of url: AssetURL) -> AssetURL {
        var text = url.string
        let end = text.firstIndex(of: "?") ?? text.endIndex
        text.insert(contentsOf: ".sig", at: end)
        // Appending to the path of a valid URL keeps it valid.
        return (try? AssetURL(parsing: text)) ?? url
    }
}
