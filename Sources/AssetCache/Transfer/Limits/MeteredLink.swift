/// `--metered`: whether the run's link is billed by the byte, and who said so
/// (docs/limits.md#metered-links). On a metered link only session-start and
/// push-click messages' assets, and assets of at most `maxAssetBytes`, are
/// fetched; the others are deferred (reason `metered`) to an unmetered run.
public struct MeteredLink: Sendable, Equatable {
    /// Raw values are the report's `metered.source`.
    public enum Source: String, Sendable {
        /// `--metered yes` or `no`.
        case flag
        /// `--metered auto` where NetworkManager is absent: the configuration file's `metered`.
        case config
        /// `--metered auto`: NetworkManager's `Metered` property.
        case networkManager = "networkmanager"
        /// `--metered auto` with nothing to ask: not metered.
        case `default`
    }

    public var isMetered: Bool
    public var source: Source
    /// Bytes an asset that is not urgent may have on a metered link.
    public var maxAssetBytes: Int64

    public init(isMetered: Bool, source: Source, maxAssetBytes: Int64) {
        self.isMetered = isMetered
        self.source = source
        self.maxAssetBytes = maxAssetBytes
    }
}
