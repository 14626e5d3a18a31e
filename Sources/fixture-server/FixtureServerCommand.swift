import ArgumentParser
import FixtureServer
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

@main
struct FixtureServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fixture-server",
        abstract: "Serve a folder over HTTP (or HTTPS) on loopback, with fault routes for tests.",
        discussion: """
            Prints its base URL as one line on stdout, then serves until SIGINT or SIGTERM.
            Fault query parameters: status, delay_ms, truncate, reset, fail_first, fail_status, \
            cache_control, expires, retry_after, etag, last_modified, redirect, redirect_loop, \
            chunked, endless, stall_after, rate; for ranges: ranges (multipart, first, 416multi, \
            ignore), max_ranges, accept_ranges, gzip, then with after, bad_range (mismatch, overlap, \
            past_end, endless, garbled), digest (sha-256, sha-512, x-goog-hash, wrong). docs/cli.md \
            says what each does.
            """)

    @Option(help: "The folder to serve.")
    var root: String

    @Option(help: "The loopback address to listen on: 127.0.0.1, ::1 or localhost.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on; 0 picks a free one.")
    var port = 0

    @Option(help: ArgumentHelp(
        "Append one JSON line per completed request to this file.",
        discussion: "Each line, keys in this order: method, target, status, body_bytes, started and ended (seconds since 1970: the head's arrival, the last byte handed to the socket), range, if-none-match, if-modified-since and if-range (when the request had them), headers (every request header)."))
    var log: String?

    @Option(help: ArgumentHelp("Serve HTTPS with this PEM certificate chain (the server's certificate first); needs --tls-key.", valueName: "file"))
    var tlsCert: String?

    @Option(help: ArgumentHelp("The PEM private key of --tls-cert.", valueName: "file"))
    var tlsKey: String?

    @Option(help: ArgumentHelp(
        "Each connection's socket send buffer (SO_SNDBUF), in bytes: small, the log's end times follow the client's reading, for measuring its rate.",
        valueName: "bytes"))
    var sendBuffer: Int?

    func validate() throws {
        guard (0...65535).contains(port) else {
            throw ValidationError("--port must be from 0 to 65535, not \(port).")
        }
        if let sendBuffer, !(1...(64 << 20)).contains(sendBuffer) {
            throw ValidationError("--send-buffer must be from 1 to 67108864 bytes, not \(sendBuffer).")
        }
        guard (tlsCert == nil) == (tlsKey == nil) else {
            throw ValidationError("--tls-cert and --tls-key go together: pass both for HTTPS, or neither.")
        }
    }

    func run() async throws {
        let logFile = try log.map { path in
            do { return try RequestLogFile(path: path) } catch { throw Self.fail("\(error)") }
        }
        let server: FixtureServer
        do {
            let tls = tlsCert.map { FixtureTLS(certificateChainPath: $0, privateKeyPath: tlsKey ?? "") }
            server = try await FixtureServer.start(root: root, host: host, port: port, tls: tls, sendBufferBytes: sendBuffer) { request in
                logFile?.append(request)
            }
        } catch let error as FixtureServerError {
            throw Self.fail(error.description)
        }
        Self.write(server.baseURL + "\n", to: STDOUT_FILENO)
        await Termination.signal()
        try await server.stop()
    }

    private static func fail(_ message: String) -> ExitCode {
        write("fixture-server: error: \(message)\n", to: STDERR_FILENO)
        return ExitCode(2)
    }

    /// Unbuffered: the URL line is read through a pipe while the server runs.
    private static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { bytes in _ = Glibc.write(descriptor, bytes.baseAddress, bytes.count) }
    }

    /// Usage errors exit 2, as every CLI of this package does (docs/cli.md),
    /// rather than the parser's default of 64.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            guard exitCode(for: error) == .validationFailure else { exit(withError: error) }
            write(fullMessage(for: error) + "\n", to: STDERR_FILENO)
            exit(withError: ExitCode(2))
        }
    }
}
