#if canImport(Glibc)
import Glibc
#endif

/// A fault injected on purpose, so that the power-loss test (scripts/powerloss.sh)
/// can show it catches a missing flush: with PREFETCH_DEBUG_SKIP_FLUSH=1 a debug
/// build skips the flush of the assets' data. Release builds never read it.
enum FlushFaultInjection {
    #if DEBUG
    static let skipsAssetDataFlush = getenv("PREFETCH_DEBUG_SKIP_FLUSH").map { String(cString: $0) == "1" } ?? false
    #else
    static let skipsAssetDataFlush = false
    #endif
}
