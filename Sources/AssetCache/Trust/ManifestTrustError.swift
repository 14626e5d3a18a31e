/// Why a correctly signed manifest is still refused: it is not the newest, not
/// for this device, or no longer true (docs/publishing.md). Each names the
/// check and the two versions or times it compared.
public enum ManifestTrustError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `version`, `expires` or `audience` is absent: a signed manifest needs all three.
    case missingField(String)
    /// An older version than one already accepted for the audience.
    case rollback(audience: String, offered: Int64, accepted: Int64)
    /// The version already accepted, with other bytes: the publisher's key signed two.
    case equivocation(audience: String, version: Int64, accepted: String, offered: String)
    /// Past its `expires` at the device's trusted time.
    case expired(expires: Double, trustedTime: Double)
    /// Meant for another manifest URL or channel.
    case wrongAudience(found: String, expected: [String])

    public var description: String {
        switch self {
        case .missingField(let key):
            "missing \(key): a signed manifest must say its version, expires and audience; add \"\(key)\" to the manifest and sign it again"
        case .rollback(let audience, let offered, let accepted):
            "rollback: version \(offered) is older than version \(accepted), which this device already accepted for '\(audience)'; publish the newest manifest, with a version above \(accepted)"
        case .equivocation(let audience, let version, let accepted, let offered):
            "equivocation: version \(version) was already accepted for '\(audience)' with other bytes (sha256 \(accepted.prefix(16))… then, \(offered.prefix(16))… now); every change needs a higher version"
        case .expired(let expires, let trustedTime):
            "expired: the manifest expired at \(RFC3339Date.format(expires)); the device's trusted time is \(RFC3339Date.format(trustedTime)); sign a new manifest with a later expires"
        case .wrongAudience(let found, let expected) where expected.isEmpty:
            "wrong audience: the manifest is for '\(found)', and this device has no audience for a manifest read from a file; pass --audience '\(found)' if it is this device's channel"
        case .wrongAudience(let found, let expected):
            "wrong audience: the manifest is for '\(found)', and this device is \(expected.map { "'\($0)'" }.joined(separator: " or ")); sign it for this device's manifest URL or channel (--audience)"
        }
    }
}
