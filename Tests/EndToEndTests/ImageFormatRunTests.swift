import FixtureServer
import Foundation
import Testing

/// Issue 14 through the real binary: every valid image fixture of every format
/// is ready with the served bytes in the cache, and the two altered photos of the
/// issue — the scan replaced by random bytes; the scan cut at a third and the end
/// marker put back, both "ready" when JPEG was only checked by structure — are
/// discarded with libjpeg's own complaint.
@Suite struct ImageFormatRunTests {
    static let valid = [
        "rgb.png", "interlaced.png", "palette.png",
        "photo.jpg", "progressive.jpg", "arithmetic.jpg", "subsampled.jpg", "subsampled-progressive.jpg",
        "banner.gif", "banner87.gif", "interlaced.gif", "animated.gif",
        "pixel.webp", "lossy.webp", "lossless.webp", "alpha.webp", "animated.webp",
    ]
    static let altered = ["garbage-scan.jpg", "cut-scan.jpg"]

    @Test func everyValidImageIsReadyAndEveryAlteredPhotoDiscarded() async throws {
        let scratch = try Scratch()
        let server = try await FixtureServer.start(root: Package.root.appendingPathComponent("fixtures").path)
        let triggers = Self.valid.map { inapp($0, ["type": "MODAL", "image_url": server.url("assets/img/" + $0)]) }
            + Self.altered.map { inapp($0, ["type": "FULL", "image_url": server.url("hostile/img/" + $0)]) }
        let manifest = try scratch.write("manifest.json", try manifestJSON(triggers))
        let result = try await CommandRunner.prefetch(["run", manifest, "--cache-dir", scratch.path("cache"), "--json"])
        try await server.stop()

        #expect(result.status == 1, "\(result.stderr)")
        let report = try result.report()
        for name in Self.valid {
            let message = try #require(report.message(name))
            #expect(message.status == "ready", "\(name): \(message.detail ?? "")")
            let cached = try #require(message.assets.first?.path, "\(name)")
            #expect(FileManager.default.contents(atPath: cached) == FileManager.default.contents(
                atPath: Package.assets.appendingPathComponent("img/" + name).path), "\(name)")
        }
        for name in Self.altered {
            let message = try #require(report.message(name))
            #expect(message.verdict == "discarded:asset_invalid", "\(name)")
            #expect(message.detail == "invalid_image: invalid JPEG: Corrupt JPEG data: premature end of data segment", "\(name)")
        }
    }
}
