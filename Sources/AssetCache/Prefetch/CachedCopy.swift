#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
import Synchronization

/// A URL's usable copy in the cache: its ref, and for each kind the ref vouches
/// for whose file is present (the object, or for a ZIP its unpacked tree), where
/// that file is.
struct CachedCopy: Sendable {
    var ref: AssetRef
    /// What a message may use this copy as: the kinds whose checks the bytes
    /// passed and whose file is there.
    var kinds: AssetKinds
    private let objectPath: String
    private let treePath: String

    init?(store: CacheStore, url: AssetURL) {
        guard let ref = store.readRef(for: url) else { return nil }
        self.init(store: store, ref: ref, kinds: store.available(ref))
    }

    /// The copies of many URLs, as `init(store:url:)` finds each one, but with
    /// each shard opened once for all of them rather than once per URL, and the
    /// refs read on every core: each read is four system calls that mostly wait
    /// (a plan reads hundreds).
    static func all(store: CacheStore, urls: [AssetURL]) -> [CachedCopy?] {
        let parts = min(ProcessInfo.processInfo.activeProcessorCount, max(1, urls.count / 64))
        let read = Mutex([[AssetRef?]](repeating: [], count: parts))
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            let slice = urls[urls.count * part / parts..<urls.count * (part + 1) / parts]
            let refs = slice.map { store.readRef(for: $0) }
            read.withLock { $0[part] = refs }
        }
        let refs = read.withLock { Array($0.joined()) }
        let present = store.present(refs)
        return refs.indices.map { index in
            guard let ref = refs[index] else { return nil }
            return CachedCopy(store: store, ref: ref, kinds: present[index])
        }
    }

    /// nil when no kind's file is there.
    private init?(store: CacheStore, ref: AssetRef, kinds: AssetKinds) {
        guard !kinds.isEmpty else { return nil }
        self.ref = ref
        self.kinds = kinds
        objectPath = store.objectPath(ref.object)
        treePath = store.treePath(ref.object)
    }

    /// Where a message that uses the URL as `kind` finds it; nil when the
    /// bytes were not checked as that kind (or its file is gone).
    func path(as kind: AssetKind) -> String? {
        guard kinds.contains(kind) else { return nil }
        return kind == .archive ? treePath : objectPath
    }

    /// What this copy is to a message that uses the URL as `kind`, its path or
    /// why it is of no use: the same answer for `plan` and readiness at display time.
    func state(as kind: AssetKind, url: AssetURL, pin: [UInt8]?) -> Result<String, AssetFailure> {
        if let failure = integrityFailure(pin: pin, url: url) { return .failure(failure) }
        guard let path = path(as: kind) else { return .failure(missing(url, as: kind)) }
        return .success(path)
    }

    /// Why the copy is of no use as `kind`: the bytes passed the checks of
    /// other kinds only, which says nothing of this one's.
    func missing(_ url: AssetURL, as kind: AssetKind) -> AssetFailure {
        let others = kinds.map(\.article).joined(separator: " and ")
        return AssetFailure(.offlineMiss, "\(url) is not in the cache as \(kind.article), only as \(others)")
    }

    /// The manifest's `integrity` pins other bytes than these. An object is named
    /// by its SHA-256 (a tree by its ZIP's), so the name says what the bytes are
    /// without reading them; `verify` checks that names and bytes agree.
    func integrityFailure(pin: [UInt8]?, url: AssetURL) -> AssetFailure? {
        guard let pin, CacheStore.hex(pin) != ref.object else { return nil }
        return .integrityMismatch(of: "the cached copy of \(url)", sha256: ref.object, pin: pin)
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
        if headers["accept-ranges"] != nil { ref.acceptsRanges = headers.acceptsByteRanges }
        return ref
    }
}

extension AssetKind {
    /// For sentences: "is not in the cache as a ZIP".
    var article: String {
        switch self {
        case .image: "an image"
        case .archive: "a ZIP"
        case .file: "a file"
        }
    }
}

extension AssetFailure {
    /// `what` (a download, a cached copy) hashes to `sha256`, not to the pin.
    static func integrityMismatch(of what: String, sha256: String, pin: [UInt8]) -> AssetFailure {
        AssetFailure(.integrityMismatch, "SHA-256 of \(what) is \(sha256), the manifest's integrity expects \(CacheStore.hex(pin))")
    }
}

extension AssetRef {
    /// The same ref but for `fetchedAt`, and neither has a freshness lifetime
    /// (`no-cache`, or nothing to compute one from): `fetchedAt` only counts
    /// against a lifetime, so rewriting the file would change nothing that is read.
    func onlyFetchTimeDiffers(from old: AssetRef) -> Bool {
        onlyFreshnessDiffers(from: old) && (maxAge ?? 0) == 0 && (old.maxAge ?? 0) == 0
    }

    /// The same ref but for `fetchedAt` and `maxAge`: the same validators, so
    /// the same copy, confirmed at another time.
    func onlyFreshnessDiffers(from old: AssetRef) -> Bool {
        var same = self
        same.fetchedAt = old.fetchedAt
        same.maxAge = old.maxAge
        return same == old
    }
}
