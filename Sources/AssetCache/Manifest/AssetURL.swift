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

    /// Fetched over TLS; it must stay so through every redirect.
    public var isHTTPS: Bool { string.hasPrefix("https://") }

    /// `cache=false` in the query marks an asset that must never be prefetched.
    /// Found once here: readiness asks it of every message.
    public let forbidsCaching: Bool

    /// The string's hash, made once: a plan hashes each URL once per message
    /// that names it (sets, look-ups), ten thousand times the same few hundred.
    private let identity: Int

    /// Works on the UTF-8 bytes (every delimiter is ASCII): the `Character`
    /// searches it replaced cost more than reading the manifest around them.
    public init(parsing raw: String) throws(ParseError) {
        var raw = raw
        let parsed = raw.withUTF8 { bytes in Result { () throws(ParseError) in try Self.normalise(bytes) } }
        string = try parsed.get()
        forbidsCaching = Self.forbidsCaching(string)
        identity = string.hashValue
    }

    public static func == (lhs: AssetURL, rhs: AssetURL) -> Bool {
        lhs.identity == rhs.identity && lhs.string == rhs.string
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(identity)
    }

    private static func normalise(_ raw: UnsafeBufferPointer<UInt8>) throws(ParseError) -> String {
        guard raw.allSatisfy({ $0 > 0x20 && $0 != 0x7F }) else { throw .malformed("contains spaces or control characters") }
        let text = { (range: Range<Int>) in String(decoding: UnsafeBufferPointer(rebasing: raw[range]), as: UTF8.self) }
        guard let schemeEnd = find("://", in: raw) else {
            guard raw.contains(UInt8(ascii: ":")) else { throw .malformed("has no scheme") }
            let whole = text(0..<raw.count)
            throw .unsupportedScheme((whole.split(separator: ":", maxSplits: 1).first.map(String.init) ?? whole).lowercased())
        }
        let scheme = text(0..<schemeEnd).lowercased()
        guard scheme == "http" || scheme == "https" else { throw .unsupportedScheme(scheme) }

        let restStart = schemeEnd + 3
        let restEnd = raw[restStart...].firstIndex(of: UInt8(ascii: "#")) ?? raw.count
        let authorityEnd = raw[restStart..<restEnd].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") } ?? restEnd
        var pathAndQuery = text(authorityEnd..<restEnd)
        if pathAndQuery.isEmpty || pathAndQuery.utf8.first == UInt8(ascii: "?") { pathAndQuery = "/" + pathAndQuery }

        var hostStart = restStart
        if let at = raw[restStart..<authorityEnd].lastIndex(of: UInt8(ascii: "@")) { hostStart = at + 1 }
        let userinfo = text(restStart..<hostStart)
        var host = text(hostStart..<authorityEnd).lowercased()
        let defaultPort = scheme == "http" ? ":80" : ":443"
        if host.hasSuffix(defaultPort) { host.removeLast(defaultPort.count) }
        guard !host.isEmpty, !host.hasPrefix(":") else { throw .malformed("has no host") }
        return "\(scheme)://\(userinfo)\(host)\(pathAndQuery)"
    }

    private static func find(_ needle: StaticString, in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        let count = needle.utf8CodeUnitCount
        guard bytes.count >= count else { return nil }
        for index in 0...(bytes.count - count) {
            if (0..<count).allSatisfy({ bytes[index + $0] == needle.utf8Start[$0] }) { return index }
        }
        return nil
    }

    private static func forbidsCaching(_ string: String) -> Bool {
        guard let mark = string.utf8.firstIndex(of: UInt8(ascii: "?")) else { return false }
        let query = string[string.index(after: mark)...]
        return query.split(separator: "&").contains { $0.lowercased() == "cache=false" }
    }

    /// For messages and logs: with its password, if any, masked (``redacted``).
    /// Requests and the cache's file names use ``string``.
    public var description: String { redacted }
    public static func < (lhs: AssetURL, rhs: AssetURL) -> Bool { lhs.string < rhs.string }
}

/// What an asset is expected to be, which decides how it is validated. One URL
/// may be used as several kinds by different messages; each message is judged
/// by the checks of the kind it uses (docs/report.md).
public enum AssetKind: String, Sendable, Codable, CaseIterable {
    /// `image_url`: must be a decodable image.
    case image
    /// `zipped_assets_url`: a ZIP, checked and unpacked.
    case archive
    /// `asset_urls` of HTML messages: validated as an image only when its bytes are one.
    case file
}
