#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Crypto
import Logging

/// Whether a manifest whose signature a trusted key vouches for is also the
/// newest one for this device and still true (docs/publishing.md): TUF's
/// rollback, freeze and mix-and-match checks, scaled to one signed document.
/// Judged against the cache's `trust/` records and a clock that only moves
/// forward, fixed once when the run starts.
public struct ManifestTrust: Sendable {
    /// The names a manifest's `audience` may have on this device: its URL (for
    /// a remote manifest) and the channels it is configured with (`--audience`).
    public let audiences: [String]
    /// The run's clock, read once.
    public let clock: Double
    /// The later of the clock and the latest time trusted before: `expires` is
    /// judged against this.
    public let trustedTime: Double
    /// How far ahead of the clock a signing time may be and still move the
    /// trusted time: publishers' and devices' clocks differ by minutes, and a
    /// key that signs a time in year 9999 must not expire every manifest for good.
    static let signingTimeTolerance: Double = 3600

    /// `store` nil: no cache yet, so nothing was accepted before.
    public init(store: CacheStore?, url: String?, channels: [String], clock: Double = Date().timeIntervalSince1970, logger: Logger) {
        var audiences = channels
        if let url { audiences.insert((try? AssetURL(parsing: url))?.string ?? url, at: 0) }
        self.audiences = audiences
        self.clock = clock
        let stored = store?.storedTrustedTime() ?? 0
        let floor = max(stored, AssetCacheVersion.releaseTime)
        if clock < floor - Self.signingTimeTolerance {
            logger.warning(
                "the clock (\(RFC3339Date.format(clock))) is behind the latest trusted time (\(RFC3339Date.format(floor))); signed manifests' expiry is judged against the latter")
        }
        trustedTime = max(clock, floor)
    }

    /// What a run does with a manifest that passed every check.
    public struct Acceptance: Sendable {
        /// The record to keep; nil when it is the version already kept (an equal version
        /// with the same bytes is a quiet no-op, not a new acceptance).
        let record: TrustRecord?
        /// The trusted time to keep.
        let trustedTime: Double
        /// The manifest is the one already accepted and is now past its `expires`:
        /// its messages are discarded (`manifest_expired`) rather than the run refused.
        public let expired: Bool
        /// For the messages: when it expired.
        public let expires: Double
    }

    /// Checks `manifest` (whose exact bytes are `bytes`) against the audiences and
    /// the records in `store`; throws the first check that fails.
    public func judge(_ manifest: Manifest, bytes: Data, store: CacheStore?) throws(ManifestTrustError) -> Acceptance {
        let fields = manifest.freshness
        guard let version = fields.version else { throw .missingField("version") }
        guard let expires = fields.expires else { throw .missingField("expires") }
        guard let audience = fields.audience else { throw .missingField("audience") }
        guard let name = audiences.first(where: { Self.names(audience, $0) }) else {
            throw .wrongAudience(found: audience, expected: audiences)
        }
        let sha256 = CacheStore.hex(SHA256.hash(data: bytes))
        var newTrustedTime = max(trustedTime, clock)
        if let signedAt = fields.signedAt, signedAt <= clock + Self.signingTimeTolerance {
            newTrustedTime = max(newTrustedTime, signedAt)
        }
        let expired = expires < trustedTime
        if let accepted = store?.trustRecord(for: name) {
            if version < accepted.version {
                throw .rollback(audience: name, offered: version, accepted: accepted.version)
            }
            if version == accepted.version {
                guard sha256 == accepted.sha256 else {
                    throw .equivocation(audience: name, version: version, accepted: accepted.sha256, offered: sha256)
                }
                return Acceptance(record: nil, trustedTime: newTrustedTime, expired: expired, expires: expires)
            }
        }
        if expired { throw .expired(expires: expires, trustedTime: trustedTime) }
        let record = TrustRecord(audience: name, version: version, sha256: sha256, expires: expires, acceptedAt: clock)
        return Acceptance(record: record, trustedTime: newTrustedTime, expired: false, expires: expires)
    }

    /// Keeps what `acceptance` says, durably, before anything of the manifest is
    /// acted on; and holds its messages back if it has expired.
    public func keep(_ acceptance: Acceptance, in store: CacheStore, manifest: inout Manifest) throws(StoreError) {
        try store.writeTrust(acceptance.record, trustedTime: acceptance.trustedTime)
        if acceptance.expired {
            manifest.holdBack(.manifestExpired, detail: Self.expiryDetail(acceptance.expires))
        }
    }

    public static func expiryDetail(_ expires: Double) -> String {
        "the signed manifest expired at \(RFC3339Date.format(expires)) and no newer one could be had"
    }

    /// The manifest names this device: its URL compared as URLs are (docs/manifest.md#urls),
    /// a channel exactly.
    private static func names(_ audience: String, _ name: String) -> Bool {
        if audience == name { return true }
        guard let a = try? AssetURL(parsing: audience), let b = try? AssetURL(parsing: name) else { return false }
        return a == b
    }
}
