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
        discussion: "Default: $PREFETCH_CACHE_DIR, else 'cache-dir' of the configuration file, else $CACHE_DIRECTORY (systemd), else $XDG_CACHE_HOME/prefetch, else ~/.cache/prefetch.",
        valueName: "dir"))
    var cacheDir: String?

    @Flag(help: "Print nothing on success, errors only (for cron).")
    var quiet = false

    @Option(help: ArgumentHelp(
        "How much to log on stderr: trace, debug, info, notice, warning, error or critical.",
        discussion: "Default: $PREFETCH_LOG_LEVEL, else 'log-level' of the configuration file, else warning (error with --quiet).",
        valueName: "level"))
    var logLevel: LogLevel?

    // Read before the arguments are parsed (Configuration); declared here to be
    // accepted, documented and checked like every option.
    @Option(help: ArgumentHelp(
        "Read this configuration file, and the keys.d beside it, instead of /etc/prefetch/prefetch.conf and ~/.config/prefetch/prefetch.conf.",
        discussion: "Default: $PREFETCH_CONFIG, else those two, the user's winning. /dev/null reads none.",
        valueName: "file"))
    var config: String?

    @Flag(help: "Read no configuration file and no keys.d: only the command line and the environment.")
    var noConfig = false

    func validate() throws {
        if config != nil && noConfig { throw ValidationError("--config and --no-config: give one or the other") }
    }

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
