/// What the cache knows about one URL: which object holds its bytes and the
/// validators to revalidate it with. Stored as `refs/<sha256(url)>.json`.
public struct AssetRef: Sendable, Codable, Equatable {
    public var url: String
    /// SHA-256 (hex) of the object holding the body.
    public var object: String
    public var etag: String?
    public var lastModified: String?
    /// Epoch seconds.
    public var fetchedAt: Double
    /// Freshness lifetime in seconds from `fetchedAt`; nil when the response gave none.
    public var maxAge: Double?
    public var bytes: Int64
    public var kind: AssetKind

    enum CodingKeys: String, CodingKey {
        case url, object, etag, bytes, kind
        case lastModified = "last_modified"
        case fetchedAt = "fetched_at"
        case maxAge = "max_age"
    }
}
