/// The release: `prefetch --version`, the User-Agent of every request, and the
/// version of the Debian packages (scripts/build-deb.sh asks the built binary).
/// The JSON report's `"version"` is something else, the version of the report's
/// format (``PrefetchReport/formatVersion``), which changes only with its keys.
public enum AssetCacheVersion {
    public static let current = "0.1.0"
    /// The release's date, set with `current`: the earliest time a device running
    /// it can be at, so that a board without a real-time clock, booted in 1970,
    /// still judges signed manifests' `expires` against a time no earlier than
    /// this (ManifestTrust).
    public static let releaseDate = "2026-11-25T00:00:00Z"
    static let releaseTime = RFC3339Date.parse(releaseDate) ?? 0
}
