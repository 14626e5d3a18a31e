import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How the client stopped reading a response body.
enum BodyEnd: Equatable, Sendable {
    /// The framing said the body was complete.
    case complete
    /// The server closed the connection before the framing said so.
    case closed
    /// The connection was reset.
    case reset
    /// Nothing arrived within the read timeout.
    case timedOut
    /// The client had read the `maxBody` bytes it wanted.
    case stopped
}

/// The connection ended before a response head arrived.
struct NoResponse: Error, Equatable {
    var end: BodyEnd
}

struct RawResponse: Sendable {
    var status: Int
    /// Lowercased names.
    var headers: [String: String]
    var body: [UInt8]
    var end: BodyEnd

    var text: String { String(decoding: body, as: UTF8.self) }
}

/// A deliberately small HTTP/1.1 client over a blocking socket: it shows
/// exactly what went over the wire (framing, truncation, resets, stalls),
/// which a full client would hide or retry. Use it from one thread at a time.
final class RawConnection: @unchecked Sendable {
    private let descriptor: Int32
    private var buffer: [UInt8] = []

    init(port: Int, timeout: Double = 10) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard descriptor >= 0, result == 0 else {
            close(descriptor)
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        setTimeout(timeout)
    }

    deinit {
        close(descriptor)
    }

    func setTimeout(_ seconds: Double) {
        var time = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - seconds.rounded(.down)) * 1_000_000))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
    }

    func sendText(_ text: String) throws {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            bytes = bytes.dropFirst(written)
        }
    }

    func sendRequest(_ method: String, _ target: String, headers: [(String, String)] = []) throws {
        var text = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        try sendText(text + "\r\n")
    }

    /// Reads one response. `method` tells whether a body may follow;
    /// `maxBody` stops reading once that many body bytes have arrived.
    func readResponse(method: String = "GET", maxBody: Int? = nil) throws -> RawResponse {
        var headEnd: Int?
        while true {
            headEnd = buffer.firstIndex(of: Array("\r\n\r\n".utf8))
            if headEnd != nil { break }
            if let end = fill() { throw NoResponse(end: end) }
        }
        let headText = String(decoding: buffer[..<headEnd!], as: UTF8.self)
        buffer.removeFirst(headEnd! + 4)
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        let status = Int(statusLine[1])!
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }
        var response = RawResponse(status: status, headers: headers, body: [], end: .complete)
        if method == "HEAD" || status == 304 || status == 204 {
            return response
        }
        if headers["transfer-encoding"]?.lowercased() == "chunked" {
            readChunked(into: &response, maxBody: maxBody)
        } else if let length = headers["content-length"].flatMap({ Int($0) }) {
            response.end = read(count: length, into: &response.body, maxBody: maxBody)
        } else {
            response.end = read(count: nil, into: &response.body, maxBody: maxBody)
        }
        return response
    }

    /// Discards whatever arrives until the connection ends or goes quiet.
    func readUntilEnd() -> BodyEnd {
        while true {
            buffer.removeAll()
            if let end = fill() { return end }
        }
    }

    /// Reads `count` bytes (or until the connection ends, for nil).
    private func read(count: Int?, into body: inout [UInt8], maxBody: Int?) -> BodyEnd {
        let target = body.count + (count ?? .max)
        while true {
            let take = min(buffer.count, target - body.count)
            body += buffer.prefix(take)
            buffer.removeFirst(take)
            if body.count == target { return .complete }
            if let maxBody, body.count >= maxBody { return .stopped }
            if let end = fill() { return count == nil && end == .closed ? .complete : end }
        }
    }

    private func readChunked(into response: inout RawResponse, maxBody: Int?) {
        var framing: [UInt8] = []
        while true {
            guard let sizeLine = readLine() else { response.end = lastEnd; return }
            let size = Int(sizeLine.split(separator: ";")[0], radix: 16) ?? 0
            if size == 0 {
                while let trailer = readLine(), !trailer.isEmpty {}
                return
            }
            let end = read(count: size, into: &response.body, maxBody: maxBody)
            if end != .complete { response.end = end; return }
            if let maxBody, response.body.count >= maxBody { response.end = .stopped; return }
            let crlfEnd = read(count: 2, into: &framing, maxBody: nil)
            if crlfEnd != .complete { response.end = crlfEnd; return }
        }
    }

    private var lastEnd: BodyEnd = .closed

    private func readLine() -> String? {
        while true {
            if let index = buffer.firstIndex(of: Array("\r\n".utf8)) {
                let line = String(decoding: buffer[..<index], as: UTF8.self)
                buffer.removeFirst(index + 2)
                return line
            }
            if let end = fill() { lastEnd = end; return nil }
        }
    }

    /// Reads more bytes; returns nil if some arrived, else why none did.
    private func fill() -> BodyEnd? {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                buffer += chunk[..<count]
                return nil
            }
            if count == 0 { return .closed }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .timedOut
            default: return .reset
            }
        }
    }
}

extension Array where Element == UInt8 {
    fileprivate func firstIndex(of pattern: [UInt8]) -> Int? {
        guard count >= pattern.count else { return nil }
        for start in 0...(count - pattern.count) where self[start..<start + pattern.count].elementsEqual(pattern) {
            return start
        }
        return nil
    }
}

/// Runs blocking socket work on a thread of its own, so that many clients
/// can wait at once without starving the cooperative pool.
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// One request on a new connection.
func fetch(
    _ port: Int, _ target: String, method: String = "GET", headers: [(String, String)] = [],
    maxBody: Int? = nil, timeout: Double = 10
) async throws -> RawResponse {
    try await onThread {
        let connection = try RawConnection(port: port, timeout: timeout)
        try connection.sendRequest(method, target, headers: headers)
        return try connection.readResponse(method: method, maxBody: maxBody)
    }
}
