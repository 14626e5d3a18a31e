import FixtureServer
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A served manifest of two messages (an image and a ZIP bundle) and a `push`
/// action that is skipped with a warning, and a cache a run has filled: what the
/// option tests run every subcommand against.
struct OptionsSetup {
    let scratch: Scratch
    let server: FixtureServer
    let manifest: String
    var cache: String { scratch.path("cache") }

    static let skipWarning = "skipped action of type 'push'"

    static func make() async throws -> OptionsSetup {
        let scratch = try Scratch()
        let server = try await FixtureServer.start(root: Package.assets.path)
        let manifest = try scratch.write("m.json", try manifestJSON([
            inapp("image", ["type": "MODAL", "image_url": server.url("img/rgb.png")]),
            inapp("bundle", ["type": "HTML_FULL", "zipped_assets_url": server.url("html/bundle.zip")]),
            ["id": "p", "type": "push"],
        ]))
        return OptionsSetup(scratch: scratch, server: server, manifest: manifest)
    }

    func prefetch(_ arguments: [String]) async throws -> CommandResult {
        try await CommandRunner.prefetch(arguments)
    }

    /// A copy of the filled cache, for a test that damages it.
    func copyOfCache(_ name: String) throws -> String {
        let copy = scratch.path(name)
        try FileManager.default.copyItem(atPath: cache, toPath: copy)
        return copy
    }

    /// Puts a symbolic link where `cache` keeps an object shard: every subcommand
    /// warns that it ignored it, unless the log level is above warnings.
    static func linkAShard(in cache: String) throws {
        let objects = cache + "/objects"
        let shard = try #require(try FileManager.default.contentsOfDirectory(atPath: objects).sorted().first)
        try FileManager.default.moveItem(atPath: "\(objects)/\(shard)", toPath: cache + "-moved-shard")
        try FileManager.default.createSymbolicLink(atPath: "\(objects)/\(shard)", withDestinationPath: cache + "-moved-shard")
    }

    /// Holds the cache's lock as another run would, until `release()`.
    final class HeldLock: Sendable {
        let descriptor: Int32

        init(_ cache: String) throws {
            descriptor = open(cache + "/lock", O_RDWR | O_CREAT, 0o644)
            guard descriptor >= 0, flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { throw CocoaError(.fileLocking) }
        }

        func release() { close(descriptor) }
    }
}

extension CommandResult {
    /// stdout as a JSON object.
    func jsonObject() throws -> [String: Any] {
        let value = try JSONSerialization.jsonObject(with: stdout)
        return try #require(value as? [String: Any], "stdout is not a JSON object: \(stdoutText)")
    }
}
