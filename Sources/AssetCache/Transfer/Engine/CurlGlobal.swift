import CCurl
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// libcurl is opened at the first transfer (see CCurl.h), and `curl_global_init`
/// must then run once, before any other libcurl call, and is not thread-safe in
/// 7.88; a static `let` gives exactly that, under Swift's own lock.
enum CurlGlobal {
    private static let failure: String? = {
        // libcurl reads SSLKEYLOGFILE when it starts and from then on writes
        // every TLS session's secrets there, silently: anyone who can set the
        // service's environment could read its traffic. Gone unless allowed.
        if !TLSKeyLog.allowed.load(ordering: .acquiring) { unsetenv(TLSKeyLog.variable) }
        if let error = ccurl_load() {
            return "libcurl cannot be loaded (\(String(cString: error))); install the libcurl4 package"
        }
        let code = ccurl_global_init_all()
        return code == CURLE_OK ? nil : "curl_global_init failed with code \(code.rawValue)"
    }()

    static func initialize() throws {
        if let failure { throw TransferEngineError(failure) }
    }
}

/// `SSLKEYLOGFILE`, the variable with which libcurl (like browsers) writes TLS
/// session secrets to a file for Wireshark. The first transfer removes it from
/// the process's environment unless ``allow()`` was called before it
/// (`prefetch run --allow-keylog`), so that no TLS secret is written by accident.
public enum TLSKeyLog {
    public static let variable = "SSLKEYLOGFILE"
    static let allowed = Atomic<Bool>(false)

    /// Keeps `SSLKEYLOGFILE` for libcurl: call before the first transfer.
    public static func allow() {
        allowed.store(true, ordering: .releasing)
    }
}
