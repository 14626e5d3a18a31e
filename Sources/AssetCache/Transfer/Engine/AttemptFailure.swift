import CCurl

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why one request failed, and whether another request could fare better.
struct AttemptFailure: Equatable {
    var failure: AssetFailure
    /// 408, 429, 5xx, network errors and timeouts (docs/limits.md); never a failure a
    /// second identical request would repeat.
    var isTransient: Bool
    /// The request never reached a server or lost it mid-way (refused, reset,
    /// unreachable, name not resolved, timed out): what a link that is down
    /// looks like from one transfer. Whether the link is down is decided from
    /// all transfers together (``LinkWatch``).
    var isLinkLevel = false
    /// 429 or 503: the host asks the whole client to slow down (``HostPacing``).
    var isHostBusy = false
    /// A 502, 503 or 504 without `Retry-After`: what a proxy or gateway whose
    /// uplink is down answers to every request. One such answer is its URL's;
    /// every transfer getting one at once is an outage (``LinkWatch``).
    var isGatewayStatus = false

    /// The statuses a gateway answers when it cannot reach beyond itself.
    static let gatewayStatuses: Set<Int> = [502, 503, 504]

    /// A response did arrive, with a status that is neither 2xx nor 304.
    /// `retryAfter`: its `Retry-After`, a server's own request for a pause,
    /// which a gateway whose uplink is down does not send.
    static func http(status: Int, from url: String, retryAfter: String? = nil) -> AttemptFailure {
        AttemptFailure(
            failure: AssetFailure(.httpStatus, "HTTP \(status) from \(url)"),
            isTransient: status == 408 || status == 429 || (500..<600).contains(status),
            isHostBusy: status == 429 || status == 503,
            isGatewayStatus: gatewayStatuses.contains(status) && retryAfter == nil
        )
    }

    /// `url` is the URL that failed (after redirects); `requestedURL` the one asked
    /// for. `detail` is libcurl's error buffer, which names the host, port or limit
    /// involved; its generic strerror text is the fallback.
    /// `osErrno`: CURLINFO_OS_ERRNO, which tells a TLS handshake cut by a reset.
    static func curl(
        _ code: CURLcode, url: String, requestedURL: String, detail: String, limits: TransferLimits, maxSize: Int64, osErrno: Int = 0
    ) -> AttemptFailure {
        let detail = detail.isEmpty ? String(cString: ccurl_easy_strerror(code)) : detail
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            return AttemptFailure(failure: AssetFailure(.timeout, "timed out fetching \(url): \(detail)"), isTransient: true, isLinkLevel: true)
        case CURLE_TOO_MANY_REDIRECTS:
            return AttemptFailure(
                failure: AssetFailure(.redirects, "more than \(limits.maxRedirects) redirects from \(requestedURL)"),
                isTransient: false
            )
        case CURLE_UNSUPPORTED_PROTOCOL where Transfer.isDowngrade(from: requestedURL, to: url):
            // An https request is only ever redirected to https (Transfer): libcurl
            // refused the hop before connecting, so no plain request was made.
            return AttemptFailure(
                failure: AssetFailure(.insecureRedirect, "\(requestedURL) redirects to \(url), which would drop TLS; not followed"),
                isTransient: false)
        case CURLE_UNSUPPORTED_PROTOCOL:
            // libcurl has already moved the effective URL to the refused target.
            let message = if url != requestedURL {
                "\(requestedURL) redirects to \(url), which is not http or https"
            } else {
                "\(url) is not an http or https URL"
            }
            return AttemptFailure(failure: AssetFailure(.unsupportedScheme, message), isTransient: false)
        case CURLE_FILESIZE_EXCEEDED:
            return AttemptFailure(failure: tooLarge(url: url, limit: maxSize), isTransient: false)
        case CURLE_URL_MALFORMAT:
            return AttemptFailure(failure: AssetFailure(.network, "malformed URL \(url): \(detail)"), isTransient: false)
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CERTPROBLEM:
            // Certificates do not change between attempts: retrying only adds delay.
            return AttemptFailure(failure: AssetFailure(.network, "TLS failure fetching \(url): \(detail)"), isTransient: false)
        default:
            return AttemptFailure(
                failure: AssetFailure(.network, "could not fetch \(url): \(detail)"), isTransient: true,
                isLinkLevel: isLinkLevel(code, osErrno: osErrno))
        }
    }

    /// Whether `code` (with the `osErrno` libcurl saw) is what a dropped link
    /// or a first hop that resets produces.
    static func isLinkLevel(_ code: CURLcode, osErrno: Int) -> Bool {
        linkLevelCodes.contains(code.rawValue) || (code == CURLE_SSL_CONNECT_ERROR && resetErrnos.contains(Int32(osErrno)))
    }

    /// The codes a dropped link produces (docs/limits.md, "When the link is
    /// down"). Not TLS handshake failures (CURLE_SSL_CONNECT_ERROR): those
    /// belong to one host, as its certificate does; unless the handshake was
    /// reset (`resetErrnos`), as a first hop whose uplink is gone resets every
    /// connection it accepted.
    static let linkLevelCodes = Set([
        CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT, CURLE_PARTIAL_FILE,
        CURLE_OPERATION_TIMEDOUT, CURLE_GOT_NOTHING, CURLE_SEND_ERROR, CURLE_RECV_ERROR,
    ].map(\.rawValue))
    static let resetErrnos: Set<Int32> = [ECONNRESET, EPIPE]

    static func tooLarge(url: String, limit: Int64) -> AssetFailure {
        AssetFailure(.tooLarge, "body of \(url) exceeds the \(describe(bytes: limit)) limit")
    }

    /// Powers of 1024 as the CLI's SIZE arguments are, so that "--max-asset-size
    /// 50M" comes back as "50 MiB".
    static func describe(bytes: Int64) -> String {
        for (unit, size) in [("GiB", Int64(1) << 30), ("MiB", Int64(1) << 20), ("KiB", Int64(1) << 10)]
        where bytes >= size && bytes % size == 0 {
            return "\(bytes / size) \(unit)"
        }
        return "\(bytes) bytes"
    }
}

/// How one request ended, as the loop needs to know it.
enum AttemptOutcome {
    /// A 2xx with its whole body, or a 304.
    case succeeded
    case failed(AttemptFailure, retryAfter: String?)
    /// A Range request could not continue the partial file (416, or a 206 for
    /// other bytes): ask once more for the whole body, at once.
    case restart
}
