/// An asset's identity: an http(s) URL normalised so that spellings of the same
/// resource compare equal (docs/manifest.md). The query stays part of the identity.
public struct AssetURL: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let string: String

    public enum ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// Only `http` and `https` are fetched.
        case unsupportedScheme(String)
        /// Why the text is not a URL: "has no host", "has no scheme", …
        case malformed(String)

        public var description: String {
            switch self {
            case .unsupportedScheme(let scheme): "the scheme '\(scheme)' is not supported; use http or https"
            case .malformed(let reason): "not a URL: it \(reason)"
            }
        }
    }

    public init(parsing raw: String) throws(ParseError) {
        guard raw.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F }) else {
            throw .malformed("contains spaces or control characters")
        }
        guard let schemeEnd = raw.firstRange(of: "://") else {
            let scheme = raw.split(separator: ":", maxSplits: 1).first.map(String.init) ?? raw
            throw raw.contains(":") ? .unsupportedScheme(scheme.lowercased()) : .malformed("has no scheme")
        }
        let scheme = raw[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else { throw .unsupportedScheme(scheme) }

        var rest = Substring(raw[schemeEnd.upperBound...])
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        var pathAndQuery = String(rest[authorityEnd...])
        if pathAndQuery.isEmpty || pathAndQuery.hasPrefix("?") { pathAndQuery = "/" + pathAndQuery }

        var userinfo = ""
        if let at = authority.lastIndex(of: "@") {
            userinfo = String(authority[...at])
            authority = authority[authority.index(after: at)...]
        }
        var host = authority.lowercased()
        let defaultPort = scheme == "http" ? ":80" : ":443"
        if host.hasSuffix(defaultPort) { host.removeLast(defaultPort.count) }
        guard !host.isEmpty, !host.hasPrefix(":") else { throw .malformed("has no host") }
        string = "\(scheme)://\(userinfo)\(host)\(pathAndQuery)"
    }

    /// `cache=false` in the query marks an asset that must never be prefetched.
    public var forbidsCaching: Bool {
        guard let mark = string.utf8.firstIndex(of: UInt8(ascii: "?")) else { return false }
        let query = string[string.index(after: mark)...]
        return query.split(separator: "&").contains { $0.lowercased() == "cache=false" }
    }

    /// For messages and logs: with its password, if any, masked (``redacted``).
    /// Requests and the cache's file names use ``string``.
    public var description: String { redacted }
    public static func < (lhs: AssetURL, rhs: AssetURL) -> Bool { lhs.string < rhs.string }
}

/// What an asset is expected to be, which decides how it is validated.
public enum AssetKind: String, Sendable, Codable {
    /// `image_url`: must be a decodable image.
    case image
    /// `zipped_assets_url`: a ZIP, checked and unpacked.
    case archive
    /// `asset_urls` of HTML messages: validated as an image only when its bytes are one.
    case file
}
