#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

public enum FixtureServerError: Error, Equatable, CustomStringConvertible {
    /// Test fixtures must never be reachable from the network.
    case nonLoopbackHost(String)
    case rootNotADirectory(String)
    /// The certificate or key for HTTPS could not be used.
    case tls(String)

    public var description: String {
        switch self {
        case .nonLoopbackHost(let host):
            "refusing to listen on '\(host)': use 127.0.0.1, ::1 or localhost"
        case .rootNotADirectory(let root):
            "root '\(root)' is not a directory"
        case .tls(let message):
            message
        }
    }
}

/// An HTTP/1.1 server over a folder, on loopback, with fault routes for tests;
/// HTTPS when it is given a certificate and key (``FixtureTLS``).
/// It runs on the process-wide NIO event loops and thread pool, so that a
/// test suite can start many servers cheaply.
///
/// Faults are query parameters of any URL (so each fault URL is its own URL)
/// and combine: `status=N`, `delay_ms=N`, `truncate=N`, `reset=1`,
/// `fail_first=N` (`fail_status=S`, default 503), `cache_control=V`,
/// `expires=V`, `retry_after=V`, `etag=V`, `last_modified=V` (verbatim, control
/// characters included), `redirect=URL`, `redirect_loop=1`,
/// `chunked=1`, `endless=1`, `stall_after=N`, `rate=BYTES_PER_SEC`; for
/// ranges (``RangeRoute``): `ranges=first|416multi|ignore|multipart`,
/// `max_ranges=N`, `accept_ranges=0`, `gzip=1`, `then=RELPATH&after=N`,
/// `bad_range=mismatch|overlap|past_end|endless|garbled`; a whole-file digest
/// with every 200 and 206: `digest=sha-256|sha-512|x-goog-hash|wrong`.
/// A malformed value of one of these is answered with 400.
public final class FixtureServer: Sendable {
    /// "http://127.0.0.1:PORT" ("https://…" with TLS), no trailing slash.
    public let baseURL: String
    public let port: Int
    private let channel: any Channel
    private let log: RequestLog
    private let connections: Locked<[ObjectIdentifier: any Channel]>

    /// Binds to loopback only: `host` must be 127.0.0.1, ::1 or localhost, else throws.
    public static func start(root: String, host: String = "127.0.0.1", port: Int = 0, tls: FixtureTLS? = nil) async throws -> FixtureServer {
        try await start(root: root, host: host, port: port, tls: tls, observer: nil)
    }

    /// As `start(root:host:port:tls:)`, and calls `onRequest` (on an event loop)
    /// with each request once its response has ended or its connection closed.
    ///
    /// `sendBufferBytes` sets each connection's SO_SNDBUF: small, a response
    /// ends in the log when the client has nearly read it, not when the
    /// kernel took it, so that a client's rate can be measured from the log.
    public static func start(
        root: String, host: String = "127.0.0.1", port: Int = 0, tls: FixtureTLS? = nil, sendBufferBytes: Int? = nil,
        onRequest: @escaping @Sendable (LoggedRequest) -> Void
    ) async throws -> FixtureServer {
        try await start(root: root, host: host, port: port, tls: tls, sendBufferBytes: sendBufferBytes, observer: onRequest)
    }

    private static func start(
        root: String, host: String, port: Int, tls: FixtureTLS?, sendBufferBytes: Int? = nil,
        observer: (@Sendable (LoggedRequest) -> Void)?
    ) async throws -> FixtureServer {
        let bindHost: String
        switch host {
        case "127.0.0.1", "localhost": bindHost = "127.0.0.1"
        case "::1", "[::1]": bindHost = "::1"
        default: throw FixtureServerError.nonLoopbackHost(host)
        }
        guard let rootPath = absolutePath(root), isDirectory(rootPath) else {
            throw FixtureServerError.rootNotADirectory(root)
        }

        let sslContext = try tls?.makeContext()
        let folder = RootFolder(path: rootPath, threadPool: .singleton)
        let log = RequestLog(observer: observer)
        let connections = Locked<[ObjectIdentifier: any Channel]>([:])
        var bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.backlog, value: 256)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                connections.withLock { $0[ObjectIdentifier(channel)] = channel }
                channel.closeFuture.whenComplete { _ in
                    _ = connections.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) }
                }
                return channel.eventLoop.makeCompletedFuture {
                    if let sslContext {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: sslContext))
                    }
                    // No outbound header validation: `etag=` and `last_modified=`
                    // send a hostile server's CR or NUL on purpose.
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withOutboundHeaderValidation: false)
                    try channel.pipeline.syncOperations.addHandler(HTTPHandler(root: folder, log: log, encrypted: sslContext != nil))
                }
            }
        if let sendBufferBytes {
            bootstrap = bootstrap.childChannelOption(ChannelOptions.socketOption(.so_sndbuf), value: SocketOptionValue(sendBufferBytes))
        }
        let channel = try await bootstrap.bind(host: bindHost, port: port).get()
        return FixtureServer(
            channel: channel, log: log, connections: connections, bindHost: bindHost, scheme: tls == nil ? "http" : "https")
    }

    private init(
        channel: any Channel, log: RequestLog, connections: Locked<[ObjectIdentifier: any Channel]>, bindHost: String, scheme: String
    ) {
        self.channel = channel
        self.log = log
        self.connections = connections
        self.port = channel.localAddress?.port ?? 0
        self.baseURL = bindHost.contains(":") ? "\(scheme)://[\(bindHost)]:\(port)" : "\(scheme)://\(bindHost):\(port)"
    }

    /// `baseURL` + "/" + `path`; `path` may carry a query.
    public func url(_ path: String) -> String {
        baseURL + "/" + (path.hasPrefix("/") ? String(path.dropFirst()) : path)
    }

    /// Logged requests, in order of arrival. A request is logged when its
    /// response has been handed to the socket, or when its connection closes.
    public func requests() -> [LoggedRequest] {
        log.requests
    }

    /// Waits until at least `count` requests are logged (or `timeout` passes)
    /// and returns the log. For requests that end with the client going away
    /// (stall, endless, an aborted download), which the client cannot await.
    public func waitForRequests(count: Int, timeout: Duration = .seconds(10)) async -> [LoggedRequest] {
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        return await log.wait(count: count, timeout: .nanoseconds(nanoseconds), on: channel.eventLoop)
    }

    /// The highest number of requests being served at one moment, from a
    /// request's head until its response ended.
    public var peakInFlight: Int { log.peakInFlight }

    /// Clears the log, the `fail_first` and `then` counters and `peakInFlight`.
    public func resetLog() {
        log.reset()
    }

    /// Stops listening and closes every open connection.
    public func stop() async throws {
        try? await channel.close()
        let open = connections.withLock { Array($0.values) }
        for connection in open {
            try? await connection.close()
        }
    }
}

private func absolutePath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
}

private func isDirectory(_ path: String) -> Bool {
    var status = stat()
    return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
}
