/// One asset to fetch into one file.
public struct TransferRequest: Sendable {
    public var url: String
    /// Absolute path; created or truncated by the transfer. Its directory must exist.
    public var destination: String
    /// Higher starts first; equal priorities start in submission order.
    public var priority: Int
    /// Extra request headers as `"Name: value"`, e.g. `If-None-Match` for revalidation.
    public var headers: [String]

    public init(url: String, destination: String, priority: Int = 0, headers: [String] = []) {
        self.url = url
        self.destination = destination
        self.priority = priority
        self.headers = headers
    }
}
