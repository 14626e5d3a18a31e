/// What a signed manifest says of itself — which version it is, until when it
/// holds, and for whom (docs/publishing.md). Inside the signed bytes, so that
/// the network can neither replay an old manifest, nor keep a device on one for
/// ever, nor move one group's manifest to another. A device with a trusted key
/// requires `version`, `expires` and `audience`; unsigned manifests may carry
/// them and are not judged by them.
public struct ManifestFreshness: Sendable, Equatable {
    /// Grows with every manifest the publisher signs for one audience.
    public var version: Int64?
    /// Epoch seconds: past it no device acts on the manifest.
    public var expires: Double?
    /// Epoch seconds: when it was signed. Optional; it tells a device without a
    /// real-time clock that time has passed.
    public var signedAt: Double?
    /// The manifest's URL, or a channel name devices are configured with.
    public var audience: String?

    public init(version: Int64? = nil, expires: Double? = nil, signedAt: Double? = nil, audience: String? = nil) {
        self.version = version
        self.expires = expires
        self.signedAt = signedAt
        self.audience = audience
    }

    /// Versions are JSON numbers: whole, and exact in a double.
    static let maxVersion: Double = 9_007_199_254_740_991
}

extension ManifestBuilder {
    func freshness(_ fields: RawManifestFields) throws(ManifestError) -> ManifestFreshness {
        var freshness = ManifestFreshness()
        if let version = fields.version {
            guard version >= 0, version <= ManifestFreshness.maxVersion, version == version.rounded(.towardZero) else {
                throw ManifestError(path: "version", "\(version) is not a whole number from 0 to 2^53 - 1")
            }
            freshness.version = Int64(version)
        }
        freshness.expires = try instant(fields.expires, path: "expires")
        freshness.signedAt = try instant(fields.signedAt, path: "signed_at")
        if let audience = fields.audience {
            guard !audience.isEmpty else { throw ManifestError(path: "audience", "must not be empty: name the manifest's URL or a channel") }
            freshness.audience = audience
        }
        return freshness
    }

    private func instant(_ text: String?, path: String) throws(ManifestError) -> Double? {
        guard let text else { return nil }
        guard let time = RFC3339Date.parse(text) else {
            throw ManifestError(path: path, "'\(text)' is not an RFC 3339 time in UTC, such as 2026-12-01T00:00:00Z")
        }
        return time
    }
}
