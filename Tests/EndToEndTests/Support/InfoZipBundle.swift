import Foundation

/// A bundle folder zipped by Info-ZIP's `zip` (the real binary) as a publisher
/// would: `zip -r` of the folder into a new archive, moved over the one a
/// ``DeltaSite`` serves. Info-ZIP writes each file's access time into its
/// local header only (the `UT` extra field; the central record has the
/// modification time alone), so a file merely read between two versions gets
/// another local header under the same central record (issue 37).
struct InfoZipBundle {
    let site: DeltaSite
    /// Every path's time unless told otherwise.
    static let baseTime = "2026-03-01 10:00:00"

    var folder: String { site.scratch.path("bundle-src") }

    /// The folder made to hold `files` (those whose bytes differ written), every
    /// path's modification time set to `modified[name]` and access time to
    /// `accessed[name]` (``baseTime`` for the rest, directories included), then
    /// zipped into a new archive and published; its bytes.
    @discardableResult
    func publish(_ files: DeltaSite.Files, modified: [String: String] = [:], accessed: [String: String] = [:]) async throws -> Data {
        var paths: Set<String> = []
        for file in files {
            let path = folder + "/" + file.name
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            if FileManager.default.contents(atPath: path).map({ [UInt8]($0) }) != file.bytes {
                try Data(file.bytes).write(to: URL(fileURLWithPath: path))
            }
            var name = file.name
            while !name.isEmpty {
                paths.insert(name)
                name = (name as NSString).deletingLastPathComponent
            }
        }
        // Set last: zip's own reading of the previous version moved access times.
        try await touch("-m", paths, modified)
        try await touch("-a", paths, accessed)
        let staging = site.scratch.path("bundle-staging.zip")
        try? FileManager.default.removeItem(atPath: staging)
        try await SystemTool.run("zip", ["-q", "-r", staging, "."], in: URL(fileURLWithPath: folder))
        let served = site.scratch.path("site/bundle.zip")
        guard rename(staging, served) == 0 else { throw CocoaError(.fileWriteUnknown) }
        return try Data(contentsOf: URL(fileURLWithPath: served))
    }

    private func touch(_ which: String, _ paths: Set<String>, _ times: [String: String]) async throws {
        for (time, group) in Dictionary(grouping: paths, by: { times[$0] ?? Self.baseTime }) {
            try await SystemTool.run("touch", [which, "-d", time] + group.sorted(), in: URL(fileURLWithPath: folder))
        }
    }
}
