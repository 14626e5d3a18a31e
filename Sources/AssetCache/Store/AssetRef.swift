/// What the cache knows about one URL: which object holds its bytes and the
/// validators to revalidate it with. Stored as `refs/<sha256(url)>.json`.
package struct AssetRef: Sendable, Codable, Equatable {
    package var url: String
    /// SHA-256 (hex) of the object holding the body.
    package var object: String
    package var etag: String?
    package var lastModified: String?
    /// Epoch seconds.
    package var fetchedAt: Double
    /// Freshness lifetime in seconds from `fetchedAt`; nil when the response gave none.
    package var maxAge: Double?
    package var bytes: Int64
    package var kind: AssetKind

    enum CodingKeys: String, CodingKey {
        case url, object, etag, bytes, kind
        case lastModified = "last_modified"
        case fetchedAt = "fetched_at"
        case maxAge = "max_age"
    }
}
