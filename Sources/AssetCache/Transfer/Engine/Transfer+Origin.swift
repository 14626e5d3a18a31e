extension Transfer {
    /// `scheme://host:port`, lower-cased and without credentials: what per-host
    /// limits, timeouts and the manifest's `--header` origin are keyed by.
    static func hostKey(of url: String) -> String {
        guard let separator = url.firstRange(of: "://") else { return url.lowercased() }
        let scheme = url[..<separator.lowerBound]
        let authority = url[separator.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let hostAndPort = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? authority
        return "\(scheme)://\(hostAndPort)".lowercased()
    }

    /// An https URL that led to one of another scheme.
    static func isDowngrade(from requested: String, to url: String) -> Bool {
        hostKey(of: requested).hasPrefix("https://") && !hostKey(of: url).hasPrefix("https://")
    }
}
