import CCurl

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// When a failed attempt is worth another request, and how long to wait first
/// (docs/limits.md).
struct TransferRetryPolicy: Sendable {
    enum Decision: Equatable {
        case retry(afterSeconds: Double)
        case giveUp(AssetFailure)
    }

    var retries: Int
    var baseDelay = 0.5
    /// A server asking for a longer pause than this is treated as unavailable:
    /// waiting would hold the whole prefetch hostage.
    var maxRetryAfter = 60.0
    /// ±25 %, so that many clients failing together do not retry together.
    var jitter = 0.25

    /// `attemptsMade` counts requests already sent, the failed one included.
    func decide(
        failure: AssetFailure, transient: Bool, retryAfter: String?, attemptsMade: Int,
        now: time_t = time(nil)
    ) -> Decision {
        guard transient, attemptsMade <= retries else { return .giveUp(failure) }
        if let retryAfter, let seconds = Self.seconds(fromRetryAfter: retryAfter, now: now) {
            if seconds > maxRetryAfter {
                var failure = failure
                failure.message += " (Retry-After \(Int(seconds)) s exceeds the \(Int(maxRetryAfter)) s limit)"
                return .giveUp(failure)
            }
            return .retry(afterSeconds: seconds)
        }
        let exponent = Double(max(0, attemptsMade - 1))
        let delay = baseDelay * pow(2, exponent) * Double.random(in: (1 - jitter)...(1 + jitter))
        return .retry(afterSeconds: delay)
    }

    /// `Retry-After` is either delay-seconds or an HTTP-date (RFC 9110 §10.2.3);
    /// nil when it is neither, so the ordinary backoff applies.
    static func seconds(fromRetryAfter value: String, now: time_t) -> Double? {
        let trimmed = ResponseHead.trimmed(value)
        if let seconds = CheckedNumber.deltaSeconds(trimmed) { return seconds }
        guard let date = HTTPDate.parse(trimmed, now: Double(now)) else { return nil }
        return max(0, date - Double(now))
    }
}
