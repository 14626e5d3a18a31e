/// Hosts given up for the rest of a run. A host that lets transfers time out is
/// slow for all of its assets: retrying each of them in turn (up to `maxTime`
/// per request, four requests each) would hold a run for hours, so once its
/// transfers have timed out `limit` times, its remaining ones fail at once.
struct HostTimeouts {
    /// 0 never gives a host up.
    let limit: Int
    private var counts: [String: Int] = [:]
    private var givenUp: Set<String> = []

    init(limit: Int) {
        self.limit = max(0, limit)
    }

    /// Counts one timed-out request to `host`; true when this one gives it up.
    mutating func countTimeout(of host: String) -> Bool {
        guard limit > 0, !givenUp.contains(host) else { return false }
        counts[host, default: 0] += 1
        guard counts[host]! >= limit else { return false }
        givenUp.insert(host)
        return true
    }

    func isGivenUp(_ host: String) -> Bool {
        givenUp.contains(host)
    }

    /// Why a transfer to a given-up host ends: `started`, it was tried before.
    func failure(host: String, started: Bool) -> AssetFailure {
        let times = limit == 2 ? "twice" : "\(limit) times"
        return AssetFailure(
            .timeout, "\(started ? "abandoned" : "not tried"): \(host) timed out \(times) in this run and was given up until the next run")
    }
}
