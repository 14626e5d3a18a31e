#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `trust/<sha256(audience)>.json`: the newest signed manifest a device has
/// accepted for one audience (a manifest URL or a channel), which every later
/// one is held against: TUF's rollback and equivocation checks, for one document.
struct TrustRecord: Codable, Equatable {
    var audience: String
    var version: Int64
    /// SHA-256 of the accepted manifest's bytes, lower-case hex.
    var sha256: String
    var expires: Double
    var acceptedAt: Double

    enum CodingKeys: String, CodingKey {
        case audience, version, sha256, expires
        case acceptedAt = "accepted_at"
    }
}

/// `trust/time.json`: the latest time the device has trusted — an accepted
/// run's clock, or an accepted manifest's signing time — below which the clock
/// is not believed. A board without a real-time clock that boots in 1970, or a
/// clock set back by hand, cannot make an expired manifest true again.
struct TrustedTimeRecord: Codable, Equatable {
    var trustedTime: Double

    enum CodingKeys: String, CodingKey {
        case trustedTime = "trusted_time"
    }
}
