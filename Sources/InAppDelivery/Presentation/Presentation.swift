import AssetCache

/// A message as the presenter is offered it: what to show and the local files
/// to show it from, as readiness found them at display time.
public struct Presentation: Sendable {
    /// The action's id, or the id the app gave a local message.
    public var id: String
    public var message: InAppMessage
    /// Empty for messages whose assets are fetched at display time (`prefetch:
    /// false`, `cache=false`, local messages): the presenter fetches those.
    public var assets: [MessageVerdict.LocalAsset]
    /// Engine clock time of the trigger (or of adding a local message).
    public var triggeredAt: Double
    public var isLocal: Bool
}
