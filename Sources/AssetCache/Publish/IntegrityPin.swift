import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An `integrity` value as a manifest gives it (docs/manifest.md): `sha256-`
/// and the base64 of the 32-byte digest.
package enum IntegrityPin {
    package static func text(digest: [UInt8]) -> String {
        "sha256-" + Data(digest).base64EncodedString()
    }

    /// From the lower-case hex a transfer reports.
    package static func text(hex: String) -> String? {
        let digits = Array(hex.utf8)
        guard digits.count == 64 else { return nil }
        var digest: [UInt8] = []
        for index in stride(from: 0, to: 64, by: 2) {
            guard let high = JSONString.hexValue(digits[index]), let low = JSONString.hexValue(digits[index + 1]) else { return nil }
            digest.append(high << 4 | low)
        }
        return text(digest: digest)
    }

    /// Lower-case hex SHA-256 of `data`, as the cache names objects.
    package static func sha256Hex(_ data: Data) -> String {
        CacheStore.hex(SHA256.hash(data: data))
    }
}
