import CCurl

/// `curl_global_init` must run once, before any other libcurl call, and is not
/// thread-safe in 7.88; a static `let` gives exactly that, under Swift's own lock.
enum CurlGlobal {
    private static let result: UInt32 = ccurl_global_init_all().rawValue

    static func initialize() throws {
        guard result == CURLE_OK.rawValue else {
            throw TransferEngineError("curl_global_init failed with code \(result)")
        }
    }
}
