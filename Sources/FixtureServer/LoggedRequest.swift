/// One request as the server saw it, recorded once its response has ended
/// or its connection has closed.
public struct LoggedRequest: Sendable, Equatable {
    public var method: String
    /// The path without the query, percent-decoded.
    public var path: String
    /// The raw query string, if the target had one.
    public var query: String?
    /// The raw request target (path?query).
    public var target: String
    /// Request headers with lowercased names; repeated headers are joined with ", ".
    public var headers: [String: String]
    /// The status sent, or 0 when no response head was sent (reset, or the
    /// client left before the head).
    public var status: Int
    /// Body bytes written to the socket.
    public var bodyBytes: Int
    /// Seconds since 1970 when the request's head arrived.
    public var startedAt: Double
    /// Seconds since 1970 when its response ended: the last byte handed to the
    /// socket, or the connection closed. Until then, when it was logged.
    public var endedAt: Double

    public init(
        method: String, path: String, query: String?, target: String,
        headers: [String: String], status: Int, bodyBytes: Int, startedAt: Double = 0, endedAt: Double = 0
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.target = target
        self.headers = headers
        self.status = status
        self.bodyBytes = bodyBytes
        self.startedAt = startedAt
        self.endedAt = endedAt
    }
}
