/// Hosts that asked the whole client to slow down. A 429 or 503 (with or
/// without `Retry-After`) is the host speaking of its own load, not of one
/// asset: until the instant it named (or the backoff the failing request
/// waits), no request to that host starts, whichever asset it is for.
struct HostPacing {
    private var notBefore: [String: ContinuousClock.Instant] = [:]

    /// Holds `host` until `instant`; a later instant already held stays.
    mutating func hold(_ host: String, until instant: ContinuousClock.Instant) {
        if let held = notBefore[host], held >= instant { return }
        notBefore[host] = instant
    }

    func isHeld(_ host: String, at now: ContinuousClock.Instant) -> Bool {
        notBefore[host].map { $0 > now } ?? false
    }

    /// The earliest instant a host held now is released, to wake the loop then;
    /// hosts already released are forgotten.
    mutating func nextRelease(after now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        notBefore = notBefore.filter { $0.value > now }
        return notBefore.values.min()
    }
}
