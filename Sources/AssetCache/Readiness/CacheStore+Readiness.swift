#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension CacheStore {
    /// What the cache alone says of a URL, with no network and no writes: the local
    /// path when its ref names an object (or, for a ZIP, an unpacked tree) that is
    /// present; nil when the cache has no usable copy.
    public func cachedState(of url: AssetURL) -> AssetState? {
        CachedCopy(store: self, url: url).map { .available(path: $0.path) }
    }

    /// A message's verdict from the cache alone, as `plan` and the delivery engine
    /// at display time ask it.
    public func verdict(for action: TriggeredAction, at now: Double = Date().timeIntervalSince1970) -> MessageVerdict {
        Readiness.verdict(for: action, at: now) { cachedState(of: $0) }
    }
}
