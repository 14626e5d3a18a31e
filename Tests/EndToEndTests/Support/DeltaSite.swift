import FixtureServer
import Foundation
import Testing

/// A folder served by the fixture server holding one HTML bundle, `bundle.zip`,
/// that a test rewrites between runs of the real `prefetch` (issue 30's delta
/// refreshes). The ZIP's entries are stored, of pseudo-random bytes, so every
/// size is real: a changed entry costs its full length.
struct DeltaSite {
    typealias Files = [(name: String, bytes: [UInt8])]

    let scratch: Scratch
    let server: FixtureServer
    /// Query of the bundle's URL: revalidated on every run, plus any range mode.
    let query: String
    var cache: String { scratch.path("cache") }
    var bundleURL: String { server.url("bundle.zip" + query) }

    static func start(_ files: Files, query: String = "") async throws -> DeltaSite {
        let scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: scratch.path("site"), withIntermediateDirectories: true)
        let server = try await FixtureServer.start(root: scratch.path("site"))
        let site = DeltaSite(scratch: scratch, server: server, query: "?cache_control=no-cache" + query)
        try site.publish(files)
        return site
    }

    /// 40 files of 2.5 MB in all: `index.html` of 4 KiB, the rest about 63 KiB each.
    static func bundle(seed: UInt64 = 1) -> Files {
        var files: Files = [("index.html", noise(4096, seed: seed))]
        for index in 1..<40 {
            files.append(("assets/part\(index).bin", noise(63_000 + index * 37, seed: seed &+ UInt64(index) &* 7919)))
        }
        return files
    }

    /// Incompressible bytes, the same for the same seed.
    static func noise(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        return (0..<count).map { _ in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state)
        }
    }

    /// The ZIP's bytes; the server's file replaced by rename, so a run never
    /// sees half of it (and its ETag, of size and mtime, changes).
    @discardableResult
    func publish(_ files: Files, date: UInt16 = 0x21) throws -> Data {
        let zip = StoredZip.make(files, date: date)
        let staging = scratch.path("site/.staging")
        try zip.write(to: URL(fileURLWithPath: staging))
        guard rename(staging, scratch.path("site/bundle.zip")) == 0 else { throw CocoaError(.fileWriteUnknown) }
        return zip
    }

    func prefetch(_ extra: [String] = [], pin: String? = nil) async throws -> CommandResult {
        let manifest = try scratch.write("manifest.json", try manifestJSON(
            [inapp("bundle", ["type": "HTML_FULL", "zipped_assets_url": bundleURL])],
            integrity: pin.map { [bundleURL: $0] } ?? [:]))
        return try await CommandRunner.prefetch(["run", manifest, "--json", "--cache-dir", cache] + extra)
    }

    /// The unpacked tree holds exactly `files`, byte for byte.
    func expectTree(_ report: Report, _ files: Files, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let path = try #require(report.asset(bundleURL)?.path, sourceLocation: sourceLocation)
        let listed = (FileManager.default.subpaths(atPath: path) ?? []).filter { name in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: path + "/" + name, isDirectory: &isDirectory) && !isDirectory.boolValue
        }
        #expect(Set(listed) == Set(files.map(\.name)), sourceLocation: sourceLocation)
        for file in files {
            let bytes = FileManager.default.contents(atPath: path + "/" + file.name).map { [UInt8]($0) }
            #expect(bytes == file.bytes, "\(file.name)", sourceLocation: sourceLocation)
        }
    }

    /// Body bytes the server sent since the last reset, by status.
    func bodyBytes(status: Int) -> Int {
        server.requests().filter { $0.status == status }.reduce(0) { $0 + $1.bodyBytes }
    }

    /// Bytes of the file the server's 206 answers carried since the last
    /// reset: the ranges asked (the fixture server answers them all, the tail's
    /// `-N` included), without the multipart framing around them.
    func fileBytes() -> Int {
        server.requests().filter { $0.status == 206 }.reduce(0) { total, request in
            let spec = (request.headers["range"] ?? "").dropFirst("bytes=".count)
            return total + spec.split(separator: ",").reduce(0) { sum, member in
                let bounds = member.split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
                guard bounds.count == 2 else { return sum }
                switch (bounds[0], bounds[1]) {
                case let (first?, last?): return sum + last - first + 1
                case let (nil, suffix?): return sum + suffix
                default: return sum
                }
            }
        }
    }

    /// One request of two ranges to a fixture server, by curl: is the answer multipart?
    static func serverSpeaksMultipart() async -> Bool {
        guard let scratch = try? Scratch(), (try? scratch.write("probe.bin", String(repeating: "x", count: 100))) != nil,
              let server = try? await FixtureServer.start(root: scratch.url.path)
        else { return false }
        let answer = try? await SystemTool.run(
            "curl", ["-s", "-D", "-", "-o", "/dev/null", "-H", "Range: bytes=0-0,2-2", server.url("probe.bin")])
        try? await server.stop()
        return answer?.stdoutText.lowercased().contains("multipart/byteranges") ?? false
    }
}
