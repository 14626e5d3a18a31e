/// A URL's usable copy in the cache: its ref, and the object or tree it names.
struct CachedCopy {
    var ref: AssetRef
    var path: String

    init?(store: CacheStore, url: AssetURL) {
        guard let ref = store.readRef(for: url) else { return nil }
        let path = ref.kind == .archive ? store.treePath(ref.object) : store.objectPath(ref.object)
        guard FileSystem.exists(path) else { return nil }
        self.ref = ref
        self.path = path
    }

    /// Within its freshness lifetime (RFC 9111 §4.2): usable with no request at all.
    func isFresh(at now: Double) -> Bool {
        guard let maxAge = ref.maxAge else { return false }
        return now >= ref.fetchedAt && now - ref.fetchedAt < maxAge
    }

    /// A ref is read from the cache directory: a validator with a control
    /// character in it is left out, and the copy revalidated unconditionally.
    var conditionalHeaders: [String] {
        var headers: [String] = []
        if let etag = HeaderRules.validator(ref.etag) { headers.append("If-None-Match: \(etag)") }
        if let lastModified = HeaderRules.validator(ref.lastModified) { headers.append("If-Modified-Since: \(lastModified)") }
        return headers
    }

    /// A 304 refreshes the ref only: new freshness, and any validator the server sent.
    func revalidated(by headers: ResponseHeaders, at now: Double) -> AssetRef {
        var ref = ref
        ref.fetchedAt = now
        var merged = headers
        // A 304 often omits Last-Modified; the stored response's still dates the body.
        if merged.lastModified == nil, let lastModified = ref.lastModified { merged.fields["last-modified"] = lastModified }
        ref.maxAge = Freshness(headers: merged, receivedAt: now).lifetime
        if let etag = headers.etag { ref.etag = etag }
        if let lastModified = headers.lastModified { ref.lastModified = lastModified }
        return ref
    }
}

extension AssetRef {
    /// The same ref but for `fetchedAt`, and neither has a freshness lifetime
    /// (`no-cache`, or nothing to compute one from): `fetchedAt` only counts
    /// against a lifetime, so rewriting the file would change nothing that is read.
    func onlyFetchTimeDiffers(from old: AssetRef) -> Bool {
        var same = self
        same.fetchedAt = old.fetchedAt
        return same == old && (maxAge ?? 0) == 0
    }
}
