/// The release: `prefetch --version`, the User-Agent of every request, and the
/// version of the Debian packages (scripts/build-deb.sh asks the built binary).
/// The JSON report's `"version"` is something else, the version of the report's
/// format (``PrefetchReport/formatVersion``), which changes only with its keys.
public enum AssetCacheVersion {
    public static let current = "0.1.0"
}
