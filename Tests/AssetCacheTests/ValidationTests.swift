import Foundation
import Testing

@testable import AssetCache

@Suite struct ValidationTests {
    typealias F = ValidationFixtures

    static let goodImages: [(String, ImageFormat, Int, Int)] = [
        ("rgb.png", .png, 64, 48),
        ("rgb-copy.png", .png, 64, 48),
        ("rgba.png", .png, 64, 48),
        ("gray.png", .png, 64, 48),
        ("gray-alpha.png", .png, 64, 48),
        ("palette.png", .png, 64, 48),
        ("rgb16.png", .png, 64, 48),
        ("interlaced.png", .png, 61, 47),
        ("banner.gif", .gif, 96, 32),
        ("photo.jpg", .jpeg, 64, 48),
        ("pixel.webp", .webp, 1, 1),
    ]

    @Test(arguments: goodImages)
    func goodImageValidates(name: String, format: ImageFormat, width: Int, height: Int) throws {
        let info = try ImageValidator.validate(path: F.image(name)).get()
        #expect(info == ImageInfo(format: format, width: width, height: height))
        #expect(ImageValidator.sniff(path: F.image(name)) == format)
    }

    @Test(arguments: [
        ("corrupt-crc.png", "invalid PNG: IDAT: CRC error"),
        ("truncated.png", "invalid PNG: file is truncated"),
        ("not-really.png", "not an image (starts with '<!DOCTYPE html')"),
        ("huge.png", "invalid PNG: Invalid IHDR data (Image width exceeds user limit in IHDR)"),
    ])
    func brokenImageFails(name: String, message: String) {
        let result = ImageValidator.validate(path: F.image(name))
        #expect(result == .failure(AssetFailure(.invalidImage, message)))
    }

    @Test func htmlIsNotSniffedAsAnImage() {
        #expect(ImageValidator.sniff(path: F.html("page.html")) == nil)
        #expect(ImageValidator.sniff(path: F.image("not-really.png")) == nil)
        #expect(ImageValidator.sniff(path: "/nonexistent/asset") == nil)
    }

    @Test func aZipIsNamedAsSuch() {
        let result = ImageValidator.validate(path: F.html("bundle.zip"))
        #expect(result == .failure(AssetFailure(.invalidImage, "not an image (a ZIP archive)")))
    }

    @Test func emptyAndBinaryFilesAreDescribed() throws {
        let scratch = try F.Scratch()
        let empty = try scratch.file("empty", contents: Data())
        #expect(ImageValidator.validate(path: empty) == .failure(AssetFailure(.invalidImage, "not an image (the file is empty)")))
        let binary = try scratch.file("binary", contents: Data([0x00, 0x01, 0x02, 0xFE, 0xFF]))
        #expect(
            ImageValidator.validate(path: binary)
                == .failure(AssetFailure(.invalidImage, "not an image (starts with bytes 00 01 02 FE FF)"))
        )
    }

    @Test func missingFileIsAStorageFailure() {
        guard case .failure(let failure) = ImageValidator.validate(path: "/nonexistent/asset") else {
            Issue.record("validated a missing file")
            return
        }
        #expect(failure.kind == .storage)
        #expect(failure.message.contains("/nonexistent/asset"))
    }

    @Test func pngOverTheSideLimitIsRefused() {
        var limits = ImageLimits()
        limits.maxSide = 32
        let failure = ImageValidator.validate(path: F.image("rgb.png"), limits: limits).validationFailure
        #expect(failure?.kind == .invalidImage)
        #expect(failure?.message.contains("exceeds user limit") == true)
    }

    @Test func pngOverThePixelLimitIsRefused() {
        var limits = ImageLimits()
        limits.maxPixels = 1000
        let failure = ImageValidator.validate(path: F.image("interlaced.png"), limits: limits).validationFailure
        #expect(failure == AssetFailure(.invalidImage, "invalid PNG: image is 61x47 = 2867 pixels, over the limit of 1000"))
    }

    @Test(arguments: ["photo.jpg", "banner.gif", "pixel.webp"])
    func otherFormatsHonourTheSideLimit(name: String) {
        var limits = ImageLimits()
        limits.maxSide = 0
        let failure = ImageValidator.validate(path: F.image(name), limits: limits).validationFailure
        #expect(failure?.kind == .invalidImage)
        #expect(failure?.message.contains("over the limit of 0 px a side") == true)
    }

    @Test(arguments: ["photo.jpg", "banner.gif", "pixel.webp", "rgb.png", "interlaced.png"])
    func everyTruncationIsRefused(name: String) throws {
        let scratch = try F.Scratch()
        let bytes = try F.bytes(F.image(name))
        // Every cut from just past the signature to one byte short of the end.
        for length in stride(from: 12, to: bytes.count, by: max(1, bytes.count / 97)) {
            let path = try scratch.file("cut", contents: bytes.prefix(length))
            let result = ImageValidator.validate(path: path)
            #expect(result.validationFailure?.kind == .invalidImage, "\(name) cut at \(length) bytes: \(result)")
        }
        let whole = try scratch.file("whole", contents: bytes.prefix(bytes.count - 1))
        #expect(ImageValidator.validate(path: whole).validationFailure?.kind == .invalidImage)
    }

    @Test func jpegWithoutEndMarkerIsRefused() throws {
        let scratch = try F.Scratch()
        let bytes = try F.bytes(F.image("photo.jpg"))
        let path = try scratch.file("no-eoi.jpg", contents: bytes.dropLast(2))
        #expect(
            ImageValidator.validate(path: path)
                == .failure(AssetFailure(.invalidImage, "invalid JPEG: file is truncated inside scan data (no EOI marker)"))
        )
    }

    @Test func gifWithoutTrailerIsRefused() throws {
        let scratch = try F.Scratch()
        let bytes = try F.bytes(F.image("banner.gif"))
        let path = try scratch.file("no-trailer.gif", contents: bytes.dropLast())
        let failure = ImageValidator.validate(path: path).validationFailure
        #expect(failure?.kind == .invalidImage)
        #expect(failure?.message.hasPrefix("invalid GIF: file is truncated") == true)
    }

    @Test func webpWithWrongRiffSizeIsRefused() throws {
        let scratch = try F.Scratch()
        var bytes = try F.bytes(F.image("pixel.webp"))
        bytes[4] &+= 2
        let path = try scratch.file("long.webp", contents: bytes)
        let failure = ImageValidator.validate(path: path).validationFailure
        #expect(failure?.kind == .invalidImage)
        #expect(failure?.message.hasPrefix("invalid WebP: file is truncated: RIFF header says") == true)
    }

    @Test func jpegWithGarbageBetweenSegmentsIsRefused() throws {
        let scratch = try F.Scratch()
        var bytes = try F.bytes(F.image("photo.jpg"))
        bytes.insert(0x42, at: 20)  // just after the 20-byte APP0 segment
        let path = try scratch.file("garbage.jpg", contents: bytes)
        #expect(
            ImageValidator.validate(path: path)
                == .failure(AssetFailure(.invalidImage, "invalid JPEG: expected a marker at offset 20, found 0x42"))
        )
    }
}
