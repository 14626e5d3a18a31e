import Foundation
import Testing

@testable import AssetCache

/// Every image in fixtures/hostile/img (fixtures/generate_hostile.py) against the
/// validator, with the exact reason.
@Suite struct HostileImageTests {
    typealias F = ValidationFixtures

    @Test(arguments: [
        ("huge-side.png", "invalid PNG: Invalid IHDR data (Image width exceeds user limit in IHDR)"),
        ("huge-31bit.png", "invalid PNG: Invalid IHDR data (Image width exceeds user limit in IHDR)"),
        ("huge-pixels.png", "invalid PNG: image is 16000x16000 = 256000000 pixels, over the limit of 67108864"),
        ("chunk-length-lie.png", "invalid PNG: file is truncated (tEXt: chunk data is too large)"),
        ("truncated.png", "invalid PNG: file is truncated"),
        ("crc-idat.png", "invalid PNG: IDAT: CRC error"),
        ("crc-text.png", "invalid PNG: tEXt: CRC error"),
        ("unknown-critical.png", "invalid PNG: CRIT: unhandled critical chunk"),
        ("html.png", "not an image (starts with '<!DOCTYPE html')"),
        ("empty.png", "not an image (the file is empty)"),
        ("huge.jpg", "invalid JPEG: image is 65500x65500, over the limit of 16384 px a side"),
        ("truncated.jpg", "invalid JPEG: file is truncated inside scan data (no EOI marker)"),
        ("huge.gif", "invalid GIF: image is 65535x65535, over the limit of 16384 px a side"),
        ("truncated.gif", "invalid GIF: file is truncated: needs 713 bytes, has 705"),
        ("huge.webp", "invalid WebP: image is 16384x16384 = 268435456 pixels, over the limit of 67108864"),
        ("riff-lie.webp", "invalid WebP: file is truncated: RIFF header says 1073741832 bytes, file has 32"),
    ])
    func hostileImageIsRefused(name: String, message: String) {
        let result = ImageValidator.validate(path: F.hostile("img/" + name))
        #expect(result == .failure(AssetFailure(.invalidImage, message)))
    }

    /// Bombs that are valid images: accepted, with metadata skipped rather than
    /// inflated (40 zTXt chunks of 7.5 MiB, a 64 MiB iCCP profile) and pixels
    /// decoded one row at a time (8192 x 8192 from 64 KiB).
    @Test(arguments: [
        ("ztxt-bomb.png", 64, 48), ("iccp-bomb.png", 64, 48), ("text-after-image.png", 64, 48), ("idat-bomb.png", 8192, 8192),
    ])
    func validBombIsAcceptedWithinMemory(name: String, width: Int, height: Int) throws {
        let info = try ImageValidator.validate(path: F.hostile("img/" + name)).get()
        #expect(info == ImageInfo(format: .png, width: width, height: height))
    }
}
