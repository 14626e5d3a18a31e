import FixtureServer
import Foundation

/// `--log FILE`: one JSON line per completed request, appended with O_APPEND
/// so that lines from concurrent connections never interleave.
final class RequestLogFile: Sendable {
    private struct Line: Encodable {
        var method: String
        var target: String
        var status: Int
        var bodyBytes: Int
        var range: String?
        var ifNoneMatch: String?
        var ifModifiedSince: String?
        var ifRange: String?
        var headers: [String: String]
        var started: Double
        var ended: Double

        enum CodingKeys: String, CodingKey {
            case method, target, status, range, headers, started, ended
            case bodyBytes = "body_bytes"
            case ifNoneMatch = "if-none-match"
            case ifModifiedSince = "if-modified-since"
            case ifRange = "if-range"
        }
    }

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
        let line = Line(
            method: request.method, target: request.target, status: request.status,
            bodyBytes: request.bodyBytes, range: request.headers["range"],
            ifNoneMatch: request.headers["if-none-match"],
            ifModifiedSince: request.headers["if-modified-since"],
            ifRange: request.headers["if-range"], headers: request.headers,
            started: request.startedAt, ended: request.endedAt)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard var data = try? encoder.encode(line) else { return }
        data.append(UInt8(ascii: "\n"))
        _ = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }
}
