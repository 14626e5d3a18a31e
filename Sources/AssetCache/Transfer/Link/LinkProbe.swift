import CCurl

/// The request a probe makes: an asset's URL, with its request's headers, so
/// that the probe takes the path that asset's transfer takes.
struct ProbeTarget: Equatable {
    let url: String
    /// scheme://host:port of `url` (``Transfer/hostKey``).
    let hostKey: String
    let headers: [String]
    let followsRedirects: Bool

    init(url: String, hostKey: String, headers: [String] = [], followsRedirects: Bool = true) {
        self.url = url
        self.hostKey = hostKey
        self.headers = headers
        self.followsRedirects = followsRedirects
    }

    init(_ transfer: Transfer) {
        self.init(
            url: transfer.request.url, hostKey: transfer.hostKey, headers: transfer.request.headers,
            followsRedirects: transfer.request.followsRedirects)
    }
}

/// A `HEAD` of an asset's URL through libcurl, as its transfer would ask:
/// the same proxy (libcurl reads `http_proxy` and its kin for every handle),
/// CA file, protocols and connect timeout, on a connection of its own. A bare
/// connect is not enough: a first hop whose uplink is gone (a modem, a NAT
/// box, a VPN endpoint) accepts and then resets, and a proxy on the LAN
/// accepts and answers `502 Bad Gateway`; only an HTTP answer from beyond
/// them says the link is back (docs/limits.md#when-the-link-is-down).
final class LinkProbe {
    /// Seconds a probe may take in all: a link that answers nothing (packets
    /// dropped) would hold it for the whole connect timeout otherwise. Five
    /// round trips of a 3G link with room to spare.
    static let timeout = 5.0

    let easy: UnsafeMutableRawPointer
    let target: ProbeTarget
    private var requestHeaders: UnsafeMutablePointer<curl_slist>?

    /// nil when libcurl cannot make the handle; the probe then counts as failed.
    init?(target: ProbeTarget, limits: TransferLimits) {
        guard let easy = ccurl_easy_init() else { return nil }
        self.easy = easy
        self.target = target
        for line in target.headers {
            requestHeaders = ccurl_slist_append(requestHeaders, line)
        }
        var result = CURLE_OK
        func set(_ code: CURLcode) {
            if result == CURLE_OK { result = code }
        }
        set(ccurl_easy_setopt_string(easy, CURLOPT_URL, target.url))
        set(ccurl_easy_setopt_long(easy, CURLOPT_NOBODY, 1))
        set(ccurl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1))
        // A connection of its own (a cached one may be half dead after the
        // outage), closed after: left in the cache, a retry would take it
        // rather than a connection of its own.
        set(ccurl_easy_setopt_long(easy, CURLOPT_FRESH_CONNECT, 1))
        set(ccurl_easy_setopt_long(easy, CURLOPT_FORBID_REUSE, 1))
        set(ccurl_easy_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https"))
        set(ccurl_easy_setopt_string(easy, CURLOPT_REDIR_PROTOCOLS_STR, target.hostKey.hasPrefix("https://") ? "https" : "http,https"))
        set(ccurl_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, target.followsRedirects ? 1 : 0))
        set(ccurl_easy_setopt_long(easy, CURLOPT_MAXREDIRS, limits.maxRedirects))
        let timeout = CheckedNumber.milliseconds(Self.timeout)
        let connect = limits.connectTimeout > 0 ? min(CheckedNumber.milliseconds(limits.connectTimeout), timeout) : timeout
        set(ccurl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Int(connect)))
        set(ccurl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, Int(timeout)))
        if let caCertFile = limits.caCertFile {
            set(ccurl_easy_setopt_string(easy, CURLOPT_CAINFO, caCertFile))
            set(ccurl_easy_setopt_string(easy, CURLOPT_CAPATH, nil))
        }
        set(ccurl_easy_setopt_string(easy, CURLOPT_USERAGENT, Transfer.userAgent))
        if requestHeaders != nil {
            set(ccurl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, requestHeaders))
        }
        guard result == CURLE_OK else { return nil }
    }

    deinit {
        ccurl_easy_cleanup(easy)
        if let requestHeaders {
            ccurl_slist_free_all(requestHeaders)
        }
    }

    /// Any HTTP answer says the link is up but a gateway's 502, 503 or 504;
    /// so does any failure but those a dropped link produces (a refused
    /// certificate is its host's).
    func linkIsUp(after code: CURLcode) -> Bool {
        guard code == CURLE_OK else {
            var osErrno = 0
            _ = ccurl_easy_getinfo_long(easy, CURLINFO_OS_ERRNO, &osErrno)
            return !AttemptFailure.isLinkLevel(code, osErrno: osErrno)
        }
        var status = 0
        _ = ccurl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        return !AttemptFailure.gatewayStatuses.contains(status)
    }
}
