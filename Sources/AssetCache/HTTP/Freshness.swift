#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How long a response may be used without asking the server again (RFC 9111 §4.2),
/// as a private cache computes it.
struct Freshness: Equatable {
    /// Seconds from receipt during which no request is needed; 0 means "revalidate
    /// every time" (`no-cache`, or no freshness information at all).
    var lifetime: Double
    /// `no-store`: the response must not be kept.
    var mayStore: Bool

    /// Heuristic freshness is 10% of the time since Last-Modified (RFC 9111 §4.2.2),
    /// capped so that a device picks up a changed asset at least daily.
    static let heuristicCap: Double = 24 * 60 * 60

    init(lifetime: Double, mayStore: Bool = true) {
        self.lifetime = lifetime
        self.mayStore = mayStore
    }

    init(cacheControl: String?, expires: String?, date: String?, age: String?, lastModified: String?, receivedAt: Double) {
        let directives = Self.directives(cacheControl)
        mayStore = directives["no-store"] == nil
        let responseDate = date.flatMap(HTTPDate.parse) ?? receivedAt
        let currentAge = age.flatMap { CheckedNumber.deltaSeconds($0.trimmed()) } ?? 0

        let explicit: Double?
        if directives["no-cache"] != nil {
            explicit = 0
        } else if let maxAge = directives["max-age"].flatMap({ $0.flatMap(CheckedNumber.deltaSeconds) }) {
            explicit = maxAge
        } else if let expires {
            // An invalid Expires (e.g. "0") means already expired (RFC 9111 §5.3).
            explicit = HTTPDate.parse(expires).map { $0 - responseDate } ?? 0
        } else {
            explicit = nil
        }
        if let explicit {
            lifetime = max(0, explicit - currentAge)
        } else if let modified = lastModified.flatMap(HTTPDate.parse), modified < responseDate {
            lifetime = max(0, min((responseDate - modified) / 10, Self.heuristicCap) - currentAge)
        } else {
            lifetime = 0
        }
    }

    /// `max-age=60, no-cache` → ["max-age": "60", "no-cache": nil]; names lower-cased.
    static func directives(_ header: String?) -> [String: String?] {
        var result: [String: String?] = [:]
        for part in (header ?? "").split(separator: ",") {
            let pieces = part.split(separator: "=", maxSplits: 1).map { $0.trimmed() }
            guard let name = pieces.first?.lowercased(), !name.isEmpty else { continue }
            result[name] = pieces.count > 1 ? pieces[1].trimmed { $0 == "\"" } : nil
        }
        return result
    }
}
