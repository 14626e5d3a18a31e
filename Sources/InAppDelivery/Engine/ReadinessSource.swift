import AssetCache

/// Whether a message can be shown from what is stored, asked at display time.
public protocol ReadinessSource {
    func verdict(for action: TriggeredAction, at now: Double) -> MessageVerdict
}

/// The cache answers from disk alone: no lock, no writes, no network, so a
/// display never waits on a running prefetch.
extension CacheStore: ReadinessSource {}
