/// Why a manifest was refused, naming the JSON path of the offending value
/// (`triggers[3].data.image_url`) so that whoever wrote it can find it.
public struct ManifestError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var message: String

    public init(path: String, _ message: String) {
        self.path = path
        self.message = message
    }

    public var description: String {
        path.isEmpty ? "invalid manifest: \(message)" : "invalid manifest: \(path): \(message)"
    }
}
