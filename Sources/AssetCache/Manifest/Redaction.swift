/// Passwords in URLs (`https://user:pass@host/…`) stay in the requests that need
/// them and out of everything a person or a program reads afterwards: reports,
/// log lines, error messages. The user name is kept, so that the line still says
/// which account was used.
public enum Redaction {
    public static let mask = "***"

    /// `text` with the password of every URL in it replaced by `***`: a whole URL,
    /// or a sentence that names URLs (libcurl's error messages do).
    public static func redactingPasswords(in text: String) -> String {
        // The common case costs one scan: no "@", no userinfo.
        guard text.utf8.contains(UInt8(ascii: "@")) else { return text }
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        var changed = false
        while let separator = find(schemeSeparatorIn: bytes, from: index) {
            let authorityStart = separator + 3
            var authorityEnd = authorityStart
            while authorityEnd < bytes.count, !endsAuthority(bytes[authorityEnd]) { authorityEnd += 1 }
            out += bytes[index..<authorityStart]
            index = authorityEnd
            let authority = bytes[authorityStart..<authorityEnd]
            guard let at = authority.lastIndex(of: UInt8(ascii: "@")),
                  let colon = authority[..<at].firstIndex(of: UInt8(ascii: ":"))
            else {
                out += authority
                continue
            }
            out += bytes[authorityStart...colon]
            out += mask.utf8
            out += bytes[at..<authorityEnd]
            changed = true
        }
        guard changed else { return text }
        out += bytes[index...]
        return String(decoding: out, as: UTF8.self)
    }

    /// The next "://", searching from `start`.
    private static func find(schemeSeparatorIn bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        while index + 2 < bytes.count {
            if bytes[index] == UInt8(ascii: ":"), bytes[index + 1] == UInt8(ascii: "/"), bytes[index + 2] == UInt8(ascii: "/") {
                return index
            }
            index += 1
        }
        return nil
    }

    /// The authority ends at the path, query or fragment, and in running text
    /// at a space or a quote around the URL.
    private static func endsAuthority(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "'"), UInt8(ascii: "\""),
             UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "`"):
            true
        default:
            byte <= 0x20 || byte == 0x7F
        }
    }
}

extension AssetURL {
    /// The URL as it may be shown: its password, if it has one, replaced by `***`.
    public var redacted: String { Redaction.redactingPasswords(in: string) }
}
