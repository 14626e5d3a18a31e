import Foundation

/// The project's link emulator (bench/linkem.py) as a child process in front
/// of a server: a TCP proxy whose `outage SECONDS KIND` takes the link down
/// for that long, in one of its four ways.
final class LinkEmulator: @unchecked Sendable {
    /// How the link goes down (bench/linkem.py's KINDS).
    enum Outage: String {
        /// Open connections reset, new ones refused: a cell handover.
        case refuse
        /// Nothing crosses either way until the link is back.
        case silent
        /// Open connections reset, new ones accepted and then reset: a
        /// modem, NAT box or VPN endpoint whose uplink is gone.
        case reset
        /// Open connections closed, every new request answered `502 Bad
        /// Gateway`: a proxy on the LAN whose uplink is down.
        case gateway
    }

    static let script = Package.root.appendingPathComponent("bench/linkem.py").path

    private let process = Process()
    /// The port clients connect to, on 127.0.0.1.
    let port: Int
    private let control: Int

    /// Starts it towards 127.0.0.1:`upstream` and returns once it says where it
    /// listens (its one JSON line on stdout): no sleep.
    init(upstream: Int, rate: String = "1gbit") async throws {
        let out = Pipe()
        process.executableURL = try SystemTool.location(of: "python3")
        process.arguments = [Self.script, "--upstream", "127.0.0.1:\(upstream)", "--down", rate, "--up", rate]
        process.standardOutput = out
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let line = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var bytes = Data()
                while let byte = try? out.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) {
                    bytes.append(byte)
                }
                continuation.resume(returning: bytes)
            }
        }
        let ports = try JSONDecoder().decode([String: Int].self, from: line)
        guard let listen = ports["listen"], let control = ports["control"] else {
            throw SystemTool.MissingTool(name: "bench/linkem.py (it printed \(String(decoding: line, as: UTF8.self)))")
        }
        port = listen
        self.control = control
    }

    deinit {
        // SIGKILL: a test process may hand its children SIGTERM ignored.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// "http://127.0.0.1:PORT/path" through the link; "https://…" for a
    /// server behind it that speaks TLS.
    func url(_ path: String, scheme: String = "http") -> String { "\(scheme)://127.0.0.1:\(port)/\(path)" }

    /// Takes the link down for `seconds`, now: the command goes straight to
    /// the control port (no process to start, so it lands when asked even on
    /// a loaded machine); returns once the emulator answered.
    func outage(seconds: Double, kind: Outage = .refuse) throws {
        try command("outage \(seconds) \(kind.rawValue)")
    }

    /// Takes the link down for `seconds` once it has delivered `bytes` more
    /// towards the client: mid-transfer by the link's own count, however
    /// late a loaded machine runs the test that asked.
    func outage(afterBytes bytes: Int, seconds: Double, kind: Outage = .refuse) throws {
        try command("outage-after \(bytes) \(seconds) \(kind.rawValue)")
    }

    /// The emulator's counters (`stats`): `connections`, `outages`,
    /// `gateway_answers`, `resets`, the byte counts.
    func stats() throws -> [String: Int] {
        let answer = try JSONSerialization.jsonObject(with: try command("stats"))
        return (answer as? [String: Any] ?? [:]).compactMapValues { $0 as? Int }
    }

    /// One line to the control port; returns the emulator's answer, a line of JSON.
    @discardableResult
    private func command(_ line: String) throws -> Data {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw SpawnFailure(step: "socket", code: errno) }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(control).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw SpawnFailure(step: "connect to linkem's control port", code: errno) }
        let command = Array("\(line)\n".utf8)
        guard write(fd, command, command.count) == command.count else { throw SpawnFailure(step: "'\(line)' command", code: errno) }
        var answer = Data()
        var buffer = [UInt8](repeating: 0, count: 512)
        while !answer.contains(UInt8(ascii: "\n")) {
            let count = read(fd, &buffer, buffer.count)
            guard count > 0 else { throw SpawnFailure(step: "linkem's answer", code: errno) }
            answer.append(contentsOf: buffer[..<count])
        }
        return answer
    }
}
