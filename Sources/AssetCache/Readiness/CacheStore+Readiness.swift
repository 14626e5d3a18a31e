#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension CacheStore {
    /// What the cache alone says of a URL used as `kind`, with no network and no
    /// writes: the local path when its ref names an object (or, for a ZIP, an
    /// unpacked tree) whose bytes passed that kind's checks; a failure when `pin`
    /// (the manifest's `integrity` for it) names other bytes, or when the bytes
    /// were checked as other kinds only; nil when the cache has no copy.
    public func cachedState(of url: AssetURL, as kind: AssetKind, pin: [UInt8]? = nil) -> AssetState? {
        switch CachedCopy(store: self, url: url)?.state(as: kind, url: url, pin: pin) {
        case .success(let path)?: .available(path: path)
        case .failure(let failure)?: .failed(failure)
        case nil: nil
        }
    }

    /// A message's verdict from the cache alone, as `plan` and the delivery engine
    /// at display time ask it; the action's integrity pins hold here too.
    public func verdict(for action: TriggeredAction, at now: Double = Date().timeIntervalSince1970) -> MessageVerdict {
        Readiness.verdict(for: action, at: now) { url, kind in cachedState(of: url, as: kind, pin: action.integrity[url]) }
    }
}
