/// What the tool sends in request headers, whatever a server, the cache or a
/// user handed it. A CR or LF inside a header ends it early, to libcurl and to
/// any proxy that takes a bare CR as a line break, and what follows becomes a
/// header of its own (request smuggling); a NUL cuts it short.
package enum HeaderRules {
    /// Why `line` ("Name: value") must not be sent, or nil when it may be. Every
    /// header goes through here before it is given to libcurl.
    package static func problem(with line: String) -> String? {
        for byte in line.utf8 {
            switch byte {
            case 0x0D: return "it contains a carriage return (CR)"
            case 0x0A: return "it contains a line feed (LF)"
            case 0x00: return "it contains a NUL byte"
            default: continue
            }
        }
        guard let colon = line.utf8.firstIndex(of: UInt8(ascii: ":")), colon != line.utf8.startIndex else {
            return "it is not of the form 'Name: value'"
        }
        return nil
    }

    /// The first of `lines` that must not be sent, with why; the message names
    /// the header, not its value.
    package static func refusal(of lines: [String]) -> String? {
        for line in lines {
            if let problem = problem(with: line) {
                let name = line.prefix { $0 != ":" && $0 != "\r" && $0 != "\n" && $0 != "\0" }
                return "the request header '\(name.prefix(64))' was not sent: \(problem)"
            }
        }
        return nil
    }

    /// A validator (ETag, Last-Modified) as it may be stored and sent back in
    /// If-None-Match, If-Modified-Since or If-Range; nil when it holds a control
    /// character (C0, DEL), which no valid entity tag or HTTP date does. Without
    /// it the copy is revalidated unconditionally.
    package static func validator(_ value: String?) -> String? {
        guard let value, !value.isEmpty, !value.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { return nil }
        return value
    }
}
