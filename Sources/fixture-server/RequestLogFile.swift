import FixtureServer
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// `--log FILE`: one JSON line per completed request, appended with O_APPEND
/// so that lines from concurrent connections never interleave.
final class RequestLogFile: Sendable {
    struct OpenError: Error, CustomStringConvertible {
        var path: String
        var reason: String
        var description: String { "cannot open log file '\(path)': \(reason)" }
    }

    private let descriptor: Int32

    init(path: String) throws {
        descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw OpenError(path: path, reason: String(cString: strerror(errno)))
        }
    }

    deinit {
        close(descriptor)
    }

    func append(_ request: LoggedRequest) {
        var data = Data(Self.line(for: request).utf8)
        data.append(UInt8(ascii: "\n"))
        _ = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }

    /// One JSON object on one line, keys in the order `--help` lists them (every
    /// JSON output of this package keeps its documented order); the request's
    /// headers, a map with no order of its own, sorted by name.
    static func line(for request: LoggedRequest) -> String {
        var fields = [
            ("method", quote(request.method)), ("target", quote(request.target)),
            ("status", String(request.status)), ("body_bytes", String(request.bodyBytes)),
            ("started", "\(request.startedAt)"), ("ended", "\(request.endedAt)"),
        ]
        for name in ["range", "if-none-match", "if-modified-since", "if-range"] {
            if let value = request.headers[name] { fields.append((name, quote(value))) }
        }
        let headers = request.headers.sorted { $0.key < $1.key }.map { "\(quote($0.key)):\(quote($0.value))" }
        fields.append(("headers", "{" + headers.joined(separator: ",") + "}"))
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    private static func quote(_ text: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        return (try? encoder.encode(text)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
    }
}
