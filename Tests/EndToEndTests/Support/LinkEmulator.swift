import Foundation

/// The project's link emulator (bench/linkem.py) as a child process in front
/// of a server: a TCP proxy whose `outage SECONDS` resets every connection and
/// refuses new ones for that long, as a cell handover does.
final class LinkEmulator: @unchecked Sendable {
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

    /// "http://127.0.0.1:PORT/path" through the link.
    func url(_ path: String) -> String { "http://127.0.0.1:\(port)/\(path)" }

    /// Takes the link down for `seconds`, now; returns once the emulator has taken the command.
    func outage(seconds: Double) async throws {
        try await SystemTool.run("python3", [
            "-c", "import sys; sys.path.insert(0, sys.argv[1]); import linkem; print(linkem.Client(int(sys.argv[2])).outage(float(sys.argv[3])))",
            Package.root.appendingPathComponent("bench").path, String(control), String(seconds),
        ])
    }
}
