import FixtureServer
import Foundation

/// A temporary folder of files and a server over it.
struct Fixture {
    static let text = Array("hello, fixture\n".utf8)
    /// Not a repeat of a short pattern, so that an offset mistake shows.
    static let blob = (0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 / 256) }

    static let standardFiles: [String: [UInt8]] = [
        "a.txt": text,
        "blob.bin": blob,
        "img.png": [0x89, 0x50, 0x4E, 0x47],
        "page.html": Array("<p>hi</p>".utf8),
        "dir/a b.txt": Array("spaced\n".utf8),
        "sub/nested/.keep": [],
    ]

    let root: URL
    let server: FixtureServer
    var port: Int { server.port }

    /// Creates the files, starts a server, runs `body`, then stops the server
    /// and removes the folder. A `secret.txt` lies next to the served root,
    /// for escape tests.
    static func with(
        files: [String: [UInt8]] = standardFiles,
        _ body: (Fixture) async throws -> Void
    ) async throws {
        let base = FileManager.default.temporaryDirectory
            .appendingPathComponent("fixture-server-tests-\(UUID().uuidString)")
        let root = base.appendingPathComponent("root")
        defer { try? FileManager.default.removeItem(at: base) }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try Data("secret\n".utf8).write(to: base.appendingPathComponent("secret.txt"))
        for (name, bytes) in files {
            let url = root.appendingPathComponent(name)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(bytes).write(to: url)
        }
        let server = try await FixtureServer.start(root: root.path)
        do {
            try await body(Fixture(root: root, server: server))
        } catch {
            try? await server.stop()
            throw error
        }
        try await server.stop()
    }
}
