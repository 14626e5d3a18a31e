import CCurl

/// A connect to a host and nothing more (CURLOPT_CONNECT_ONLY: TCP, and the
/// TLS handshake for https): whether the link carries packets, for the price
/// of a handshake, without asking any asset's server for anything.
final class LinkProbe {
    let easy: UnsafeMutableRawPointer
    let host: String

    /// nil when libcurl cannot make the handle; the probe then counts as failed.
    init?(host: String, limits: TransferLimits) {
        guard let easy = ccurl_easy_init() else { return nil }
        self.easy = easy
        self.host = host
        var result = CURLE_OK
        func set(_ code: CURLcode) {
            if result == CURLE_OK { result = code }
        }
        set(ccurl_easy_setopt_string(easy, CURLOPT_URL, host + "/"))
        set(ccurl_easy_setopt_long(easy, CURLOPT_CONNECT_ONLY, 1))
        set(ccurl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1))
        set(ccurl_easy_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https"))
        if limits.connectTimeout > 0 {
            set(ccurl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Int(CheckedNumber.milliseconds(limits.connectTimeout))))
        }
        if let caCertFile = limits.caCertFile {
            set(ccurl_easy_setopt_string(easy, CURLOPT_CAINFO, caCertFile))
            set(ccurl_easy_setopt_string(easy, CURLOPT_CAPATH, nil))
        }
        guard result == CURLE_OK else { return nil }
    }

    deinit {
        ccurl_easy_cleanup(easy)
    }

    /// Any answer says the link is up, a refused certificate included: only
    /// the failures a dropped link produces say it is still down.
    static func linkIsUp(after code: CURLcode) -> Bool {
        code == CURLE_OK || !AttemptFailure.linkLevelCodes.contains(code.rawValue)
    }
}
