/// What the cache knows about one URL: which object holds its bytes, the
/// validators to revalidate it with, and which kinds' checks those bytes passed.
/// Stored as `refs/<sha256(url)>.json`: one ref per URL, as a URL is fetched
/// once whatever kinds the manifest uses it as.
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
    /// The first of ``passedKinds``: the one kind a reader older than `kinds` knows.
    package var kind: AssetKind
    /// Every kind whose checks the bytes passed, when there is more than `kind`
    /// alone; nil otherwise, so that a ref of one kind is written exactly as
    /// before `kinds` existed. Set through ``passedKinds``.
    package var kinds: [AssetKind]?
    /// The server sent `Accept-Ranges: bytes`: a changed ZIP may be fetched by
    /// delta (issue 30). nil otherwise, so that refs of servers without ranges,
    /// and refs written before, read and write as they did.
    package var acceptsRanges: Bool?

    enum CodingKeys: String, CodingKey {
        case url, object, etag, bytes, kind, kinds
        case acceptsRanges = "accept_ranges"
        case lastModified = "last_modified"
        case fetchedAt = "fetched_at"
        case maxAge = "max_age"
    }

    /// The kinds a message may use this copy as: a body checked as an image is
    /// not thereby a valid ZIP, nor the other way round.
    package var passedKinds: AssetKinds {
        get { kinds.map { AssetKinds($0) } ?? AssetKinds(kind) }
        set {
            guard let first = newValue.first else { preconditionFailure("a ref vouches for at least one kind") }
            kind = first
            kinds = newValue.count > 1 ? Array(newValue) : nil
        }
    }
}

extension AssetRef {
    /// A ref vouching for `kinds`, which must not be empty.
    package init(
        url: String, object: String, etag: String?, lastModified: String?, fetchedAt: Double, maxAge: Double?,
        bytes: Int64, kinds: AssetKinds, acceptsRanges: Bool? = nil
    ) {
        self.init(
            url: url, object: object, etag: etag, lastModified: lastModified, fetchedAt: fetchedAt, maxAge: maxAge,
            bytes: bytes, kind: .image)
        passedKinds = kinds
        self.acceptsRanges = acceptsRanges
    }
}

extension ResponseHeaders {
    /// `Accept-Ranges` names the `bytes` unit (RFC 9110 §14.3); nil rather than
    /// false when it does not, as the ref stores it.
    var acceptsByteRanges: Bool? {
        guard let field = self["accept-ranges"] else { return nil }
        return field.split(separator: ",").contains { ResponseHead.trimmed($0).lowercased() == "bytes" } ? true : nil
    }
}
