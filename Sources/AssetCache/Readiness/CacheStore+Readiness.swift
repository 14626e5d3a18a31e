#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension CacheStore {
    /// What the cache alone says of a URL, with no network and no writes: the local
    /// path when its ref names an object (or, for a ZIP, an unpacked tree) that is
    /// present; a failure when `pin` (the manifest's `integrity` for it) names
    /// other bytes; nil when the cache has no usable copy.
    public func cachedState(of url: AssetURL, pin: [UInt8]? = nil) -> AssetState? {
        guard let copy = CachedCopy(store: self, url: url) else { return nil }
        if let failure = copy.integrityFailure(pin: pin, url: url) { return .failed(failure) }
        return .available(path: copy.path)
    }

    /// A message's verdict from the cache alone, as `plan` and the delivery engine
    /// at display time ask it; the action's integrity pins hold here too.
    public func verdict(for action: TriggeredAction, at now: Double = Date().timeIntervalSince1970) -> MessageVerdict {
        Readiness.verdict(for: action, at: now) { cachedState(of: $0, pin: action.integrity[$0]) }
    }
}
