import CCurl

/// libcurl is opened at the first transfer (see CCurl.h), and `curl_global_init`
/// must then run once, before any other libcurl call, and is not thread-safe in
/// 7.88; a static `let` gives exactly that, under Swift's own lock.
enum CurlGlobal {
    private static let failure: String? = {
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
