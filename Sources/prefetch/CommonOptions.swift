import ArgumentParser
import AssetCache
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Options every subcommand takes and means the same by. What a subcommand
/// prints with `--json` is its own, so each declares that flag with its own help
/// (`run` and `plan` through ``ReportOptions``).
struct CommonOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The cache directory.",
        discussion: "Default: $PREFETCH_CACHE_DIR, else $CACHE_DIRECTORY (systemd), else $XDG_CACHE_HOME/prefetch, else ~/.cache/prefetch.",
        valueName: "dir"))
    var cacheDir: String?

    @Flag(help: "Print nothing on success, errors only (for cron).")
    var quiet = false

    @Option(help: ArgumentHelp(
        "How much to log on stderr: trace, debug, info, notice, warning, error or critical.",
        discussion: "Default: $PREFETCH_LOG_LEVEL, else warning (error with --quiet).",
        valueName: "level"))
    var logLevel: LogLevel?

    var cacheDirectory: String {
        let path = cacheDir ?? Self.defaultCacheDirectory(ProcessInfo.processInfo.environment)
        return URL(fileURLWithPath: path).standardizedFileURL.path
    }

    static func defaultCacheDirectory(_ environment: [String: String]) -> String {
        if let dir = environment["PREFETCH_CACHE_DIR"], !dir.isEmpty { return dir }
        // systemd passes a colon-separated list when a unit names several.
        if let dirs = environment["CACHE_DIRECTORY"], let first = dirs.split(separator: ":").first {
            return String(first)
        }
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") { return "\(xdg)/prefetch" }
        let home = environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path
        return "\(home)/.cache/prefetch"
    }
}
