/// Follows the header lines libcurl hands over, one response at a time. libcurl
/// passes the headers of every response it sees (1xx, each redirect, the final
/// one) through the same callback; each status line starts a new response, so
/// what is left at the end belongs to the final response only.
struct ResponseHead {
    /// The status of the response whose headers are being received; 0 before any.
    private(set) var status = 0
    private(set) var headers = ResponseHeaders()
    /// After the blank line; chunked trailers that follow the body are ignored.
    private(set) var isComplete = false

    var isSuccess: Bool { (200..<300).contains(status) }

    mutating func consume(line bytes: UnsafeRawBufferPointer) {
        let line = String(decoding: bytes, as: UTF8.self)
        if line.hasPrefix("HTTP/") {
            self = ResponseHead()
            let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
            status = parts.count > 1 ? Int(Self.trimmed(parts[1])) ?? 0 : 0
            return
        }
        guard !isComplete else { return }
        let content = Self.trimmed(line)
        if content.isEmpty {
            isComplete = true
            return
        }
        guard let colon = content.firstIndex(of: ":") else { return }
        let name = Self.trimmed(content[..<colon])
        guard !name.isEmpty else { return }
        headers.append(name: name, value: Self.trimmed(content[content.index(after: colon)...]))
    }

    static func trimmed(_ text: some StringProtocol) -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }
        guard let first = text.firstIndex(where: { !isSpace($0) }),
              let last = text.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(text[first...last])
    }
}
