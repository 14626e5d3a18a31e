import CCurl

extension Transfer {
    /// The options of a request beyond its URL and headers: protocols,
    /// redirects, timeouts, the size cap, the rate limit, trust, and decoding
    /// (off when it asks for a range).
    func requestOptions(_ easy: UnsafeMutableRawPointer, limits: TransferLimits, context: UnsafeMutableRawPointer) -> CURLcode {
        var result = CURLE_OK
        func set(_ code: CURLcode) {
            if result == CURLE_OK { result = code }
        }
        // Signals would need the process's handlers; timeouts work without them.
        set(ccurl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1))
        // Debian's libcurl also speaks file, ftp, smb, …: an asset URL or a
        // redirect must not reach them.
        set(ccurl_easy_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https"))
        // And an https URL never becomes http: that would hand the network the
        // bytes (and, for a pin-less asset, the choice of them).
        set(ccurl_easy_setopt_string(easy, CURLOPT_REDIR_PROTOCOLS_STR, hostKey.hasPrefix("https://") ? "https" : "http,https"))
        set(ccurl_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, request.followsRedirects ? 1 : 0))
        if request.headOnly { set(ccurl_easy_setopt_long(easy, CURLOPT_NOBODY, 1)) }
        set(ccurl_easy_setopt_long(easy, CURLOPT_MAXREDIRS, limits.maxRedirects))
        // Requests that start together towards a new host wait for the first TLS
        // handshake to say (ALPN) whether it multiplexes (HTTP/2). Not over plain
        // HTTP: libcurl learns it cannot only when the first transfer ends.
        if hostKey.hasPrefix("https://") {
            set(ccurl_easy_setopt_long(easy, CURLOPT_PIPEWAIT, 1))
        }
        set(ccurl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(limits.connectTimeout)))
        set(ccurl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, Self.milliseconds(limits.maxTime)))
        if limits.stallTimeout > 0, limits.stallBytesPerSecond > 0 {
            set(ccurl_easy_setopt_long(easy, CURLOPT_LOW_SPEED_LIMIT, limits.stallBytesPerSecond))
            set(ccurl_easy_setopt_long(easy, CURLOPT_LOW_SPEED_TIME, max(1, Int((CheckedNumber.milliseconds(limits.stallTimeout) + 999) / 1000))))
        }
        // libcurl 7.88 checks this only against a Content-Length it was told;
        // the write callback enforces the cap on what actually arrives.
        set(ccurl_easy_setopt_off_t(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(maxAssetSize)))
        if let rate = limits.limitRate {
            set(limitReceiving(easy, bytesPerSecond: rate, concurrency: limits.concurrency, context: context))
        }
        if let caCertFile = limits.caCertFile {
            set(ccurl_easy_setopt_string(easy, CURLOPT_CAINFO, caCertFile))
            // Instead of the system's certificates, not beside them: Debian's
            // libcurl also trusts every file in /etc/ssl/certs by default.
            set(ccurl_easy_setopt_string(easy, CURLOPT_CAPATH, nil))
        }
        set(ccurl_easy_setopt_string(easy, CURLOPT_USERAGENT, Self.userAgent))
        // Decoding on, the header off (beginAttempt sends "Accept-Encoding:"
        // empty): every cap counts decoded bytes, as they reach the write
        // callback. No FAILONERROR: the status is read after the fact, so 4xx
        // and 5xx stay distinguishable.
        set(ccurl_easy_setopt_string(easy, CURLOPT_ACCEPT_ENCODING, ""))
        // A range of an encoded body is not a stream a decoder can start in: it
        // is passed on as it came, and refused for its Content-Encoding.
        if range != nil || request.ranged != nil {
            set(ccurl_easy_setopt_long(easy, CURLOPT_HTTP_CONTENT_DECODING, 0))
        }
        return result
    }

    /// 0 is libcurl's "no limit" (for connecting: its 300 s default).
    private static func milliseconds(_ seconds: Double) -> Int {
        Int(CheckedNumber.milliseconds(seconds))
    }
}
