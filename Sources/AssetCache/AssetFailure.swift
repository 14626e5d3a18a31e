#if canImport(Glibc)
import Glibc
#endif

/// Why one asset has no usable copy. The raw values are the `error.kind` strings of
/// the JSON report (docs/report.md) and are part of the user-facing contract.
public enum AssetErrorKind: String, Sendable, Codable, CaseIterable {
    case httpStatus = "http_status"
    case timeout
    case network
    case tooLarge = "too_large"
    case redirects
    case unsupportedScheme = "unsupported_scheme"
    /// An https URL redirected to http (or another scheme): never followed.
    case insecureRedirect = "insecure_redirect"
    case offlineMiss = "offline_miss"
    case storage
    case invalidImage = "invalid_image"
    case invalidArchive = "invalid_archive"
    case unsafeArchive = "unsafe_archive"
    case archiveLimits = "archive_limits"
    case integrityMismatch = "integrity_mismatch"

    /// Failures of the bytes themselves make a message `asset_invalid`; everything
    /// that kept the bytes from arriving makes it `asset_download_failed`.
    public var isInvalidContent: Bool {
        switch self {
        case .invalidImage, .invalidArchive, .unsafeArchive, .archiveLimits, .integrityMismatch: true
        default: false
        }
    }
}

/// One asset's failure: what kind, and a sentence that names what was wrong.
public struct AssetFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public var kind: AssetErrorKind
    public var message: String
    /// A `storage` failure because the file system was full (ENOSPC, EDQUOT):
    /// the asset is deferred (`storage_low`), not discarded.
    package var lacksSpace = false

    /// A password in a URL the message names (libcurl's too) is replaced by `***`
    /// here, so that no report or log line built from a failure carries it.
    public init(_ kind: AssetErrorKind, _ message: String) {
        self.kind = kind
        self.message = Redaction.redactingPasswords(in: message)
    }

    public var description: String { "\(kind.rawValue): \(message)" }
}

extension AssetFailure {
    /// A `storage` failure of a system call that set `code`: "what path: reason (errno N)".
    package static func storage(_ what: String, _ path: String, code: Int32) -> AssetFailure {
        var failure = AssetFailure(.storage, "\(what) \(path): \(String(cString: strerror(code))) (errno \(code))")
        failure.lacksSpace = FileSystemSpace.isFull(code)
        return failure
    }
}
