/// The faults a request asks for through its query. Unknown parameters are
/// ignored (clients add their own, such as cache busters); a known one with a
/// bad value is reported in `problems` so a typo is not silently a plain 200.
struct FaultRoute: Equatable {
    var status: Int?
    var delayMilliseconds = 0
    /// `delay_after=N`: the delay applies from the (N+1)th request to the URL on.
    var delayAfter: Int?
    var truncate: Int?
    var reset = false
    var failFirst = 0
    var failStatus = 503
    var cacheControl: String?
    var expires: String?
    var retryAfter: String?
    /// Sent instead of the file's own validators, verbatim: a hostile server's
    /// control characters included.
    var etag: String?
    var lastModified: String?
    var redirect: String?
    var redirectLoop = false
    var chunked = false
    var endless = false
    var stallAfter: Int?
    var rate: Int?
    /// How Range requests are answered, and how the answer misbehaves.
    var ranges = RangeRoute()
    /// `digest=`: a whole-file digest sent with the file's answers.
    var digest: FileDigest?
    var problems: [String] = []

    /// `only=SUFFIX` keeps the faults to paths ending in SUFFIX: a manifest and
    /// its signature share one query (`m.json?q` and `m.json.sig?q`), so
    /// `only=.sig` makes the signature alone misbehave.
    init(query: String?, path: String = "") {
        var only: String?
        for pair in (query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0]).percentDecoded(plusAsSpace: true)
            let value = parts.count > 1 ? String(parts[1]).percentDecoded(plusAsSpace: true) : ""
            if name == "only" { only = value } else { apply(name: name, value: value) }
        }
        if ranges.then != nil, ranges.after == nil {
            problems.append("then needs after=N: the number of requests answered before it applies")
        }
        if let only, !path.hasSuffix(only) { self = FaultRoute(query: nil) }
    }

    private mutating func apply(name: String, value: String) {
        switch name {
        case "status": status = QueryValue.statusCode(name, value, &problems)
        case "delay_ms": delayMilliseconds = QueryValue.count(name, value, &problems) ?? 0
        case "delay_after": delayAfter = QueryValue.count(name, value, &problems)
        case "truncate": truncate = QueryValue.count(name, value, &problems)
        case "reset": reset = QueryValue.flag(name, value, &problems)
        case "fail_first": failFirst = QueryValue.count(name, value, &problems) ?? 0
        case "fail_status": failStatus = QueryValue.statusCode(name, value, &problems) ?? 503
        case "cache_control": cacheControl = value
        case "expires": expires = value
        case "retry_after": retryAfter = value
        case "etag": etag = value
        case "last_modified": lastModified = value
        case "redirect": redirect = value
        case "redirect_loop": redirectLoop = QueryValue.flag(name, value, &problems)
        case "chunked": chunked = QueryValue.flag(name, value, &problems)
        case "endless": endless = QueryValue.flag(name, value, &problems)
        case "stall_after": stallAfter = QueryValue.count(name, value, &problems)
        case "rate":
            rate = QueryValue.count(name, value, &problems)
            if rate == 0 {
                rate = nil
                problems.append("rate must be at least 1 byte per second")
            }
        case "digest":
            digest = QueryValue.choice(name, value, Dictionary(uniqueKeysWithValues: FileDigest.allCases.map { ($0.rawValue, $0) }), &problems)
        default: ranges.apply(name: name, value: value, problems: &problems)
        }
    }

    /// Headers the query asks to add to whatever response is sent.
    var extraHeaders: [(String, String)] {
        var headers: [(String, String)] = []
        if let cacheControl { headers.append(("Cache-Control", cacheControl)) }
        if let expires { headers.append(("Expires", expires)) }
        if let retryAfter { headers.append(("Retry-After", retryAfter)) }
        if let etag { headers.append(("ETag", etag)) }
        if let lastModified { headers.append(("Last-Modified", lastModified)) }
        return headers
    }

    /// How many body bytes to send before cutting or stalling, and which of
    /// the two; nil sends the whole body.
    var bodyCut: BodyCut? {
        switch (truncate, stallAfter) {
        case let (t?, s?): t <= s ? .truncate(t) : .stall(s)
        case let (t?, nil): .truncate(t)
        case let (nil, s?): .stall(s)
        case (nil, nil): nil
        }
    }
}

enum BodyCut: Equatable {
    /// Send this many bytes, then close the connection.
    case truncate(Int)
    /// Send this many bytes, then nothing more while the connection lives.
    case stall(Int)

    var bytes: Int {
        switch self {
        case .truncate(let n), .stall(let n): n
        }
    }
}
