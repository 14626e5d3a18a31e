import Foundation
import Testing

@testable import AssetCache

@Suite struct ValidationTests {
    typealias F = ValidationFixtures

    /// Every valid fixture of every format: name, format, size, frames.
    static let goodImages: [(String, ImageFormat, Int, Int, Int)] = [
        ("rgb.png", .png, 64, 48, 1),
        ("rgb-copy.png", .png, 64, 48, 1),
        ("rgba.png", .png, 64, 48, 1),
        ("gray.png", .png, 64, 48, 1),
        ("gray-alpha.png", .png, 64, 48, 1),
        ("palette.png", .png, 64, 48, 1),
        ("rgb16.png", .png, 64, 48, 1),
        ("interlaced.png", .png, 61, 47, 1),
        ("photo.jpg", .jpeg, 64, 48, 1),
        ("progressive.jpg", .jpeg, 64, 48, 1),
        ("arithmetic.jpg", .jpeg, 64, 48, 1),
        ("subsampled.jpg", .jpeg, 101, 67, 1),
        ("subsampled-progressive.jpg", .jpeg, 101, 67, 1),
        ("banner.gif", .gif, 96, 32, 1),
        ("banner87.gif", .gif, 96, 32, 1),
        ("interlaced.gif", .gif, 61, 47, 1),
        ("animated.gif", .gif, 64, 48, 3),
        ("pixel.webp", .webp, 1, 1, 1),
        ("lossy.webp", .webp, 64, 48, 1),
        ("lossless.webp", .webp, 64, 48, 1),
        ("alpha.webp", .webp, 64, 48, 1),
        ("animated.webp", .webp, 64, 48, 3),
    ]

    @Test(arguments: goodImages)
    func goodImageValidates(name: String, format: ImageFormat, width: Int, height: Int, frames: Int) throws {
        let info = try ImageValidator.validate(path: F.image(name)).get()
        #expect(info == ImageInfo(format: format, width: width, height: height, frames: frames))
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

    /// Progressive JPEG and lossless WebP hold the whole image while decoding;
    /// baseline JPEG and lossy WebP stream, so the same limit does not touch them.
    @Test func decoderMemoryIsBoundedWhereAFormatNeedsTheWholeImage() {
        var limits = ImageLimits()
        limits.maxDecoderMemory = 8 * 1024
        // 64x48 at 4:4:4: 8x6 blocks of 128 bytes for each of 3 components.
        #expect(ImageValidator.validate(path: F.image("progressive.jpg"), limits: limits).validationFailure
            == AssetFailure(.invalidImage, "invalid JPEG: a 64x48 progressive JPEG needs 18 KiB to decode, over the limit of 8 KiB"))
        #expect(ImageValidator.validate(path: F.image("lossless.webp"), limits: limits).validationFailure
            == AssetFailure(.invalidImage, "invalid WebP: a 64x48 lossless frame needs 12 KiB to decode, over the limit of 8 KiB"))
        #expect((try? ImageValidator.validate(path: F.image("photo.jpg"), limits: limits).get()) != nil)
        #expect((try? ImageValidator.validate(path: F.image("lossy.webp"), limits: limits).get()) != nil)
    }

    @Test func animationsHonourTheFrameLimits() {
        var limits = ImageLimits()
        limits.maxFrames = 2
        #expect(ImageValidator.validate(path: F.image("animated.gif"), limits: limits).validationFailure
            == AssetFailure(.invalidImage, "invalid GIF: more than 2 frames"))
        limits = ImageLimits()
        limits.maxAnimationPixels = 4000
        // 64x48, then 16x16 and 40x34 sub-frames.
        #expect(ImageValidator.validate(path: F.image("animated.webp"), limits: limits).validationFailure
            == AssetFailure(.invalidImage, "invalid WebP: frames 1-3 hold 4688 pixels, over the limit of 4000 for an animation"))
    }

    @Test(arguments: ["photo.jpg", "banner.gif", "pixel.webp"])
    func otherFormatsHonourTheSideLimit(name: String) {
        var limits = ImageLimits()
        limits.maxSide = 0
        let failure = ImageValidator.validate(path: F.image(name), limits: limits).validationFailure
        #expect(failure?.kind == .invalidImage)
        #expect(failure?.message.contains("over the limit of 0 px a side") == true)
    }

    @Test(arguments: [
        "photo.jpg", "progressive.jpg", "arithmetic.jpg", "subsampled.jpg", "banner.gif", "interlaced.gif", "animated.gif",
        "pixel.webp", "lossy.webp", "lossless.webp", "alpha.webp", "animated.webp", "rgb.png", "interlaced.png",
    ])
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
                == .failure(AssetFailure(.invalidImage, "invalid JPEG: Premature end of JPEG file"))
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

    /// Only the two versions there are: giflib itself looks at "GIF" alone.
    @Test func gifWithAnotherVersionIsNotAnImage() throws {
        let scratch = try F.Scratch()
        var bytes = try F.bytes(F.image("banner.gif"))
        bytes[4] = UInt8(ascii: "8")
        let path = try scratch.file("gif88a.gif", contents: bytes)
        #expect(ImageValidator.validate(path: path).validationFailure?.message.hasPrefix("not an image") == true)
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
                == .failure(AssetFailure(.invalidImage, "invalid JPEG: Corrupt JPEG data: 1 extraneous bytes before marker 0xdb"))
        )
    }
}
