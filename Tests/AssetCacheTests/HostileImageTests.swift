import Foundation
import Testing

@testable import AssetCache

/// Every image in fixtures/hostile/img (fixtures/generate_hostile.py and
/// fixtures/hostile_images.py) against the validator, with the exact reason: the
/// decoder's own complaint, or the limit crossed.
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
        ("truncated.jpg", "invalid JPEG: Premature end of JPEG file"),
        ("garbage-scan.jpg", "invalid JPEG: Corrupt JPEG data: premature end of data segment"),
        ("cut-scan.jpg", "invalid JPEG: Corrupt JPEG data: premature end of data segment"),
        ("wrong-huffman.jpg", "invalid JPEG: Corrupt JPEG data: premature end of data segment"),
        ("arithmetic-garbage.jpg", "invalid JPEG: Corrupt JPEG data: 46 extraneous bytes before marker 0xd9"),
        ("progressive-cut.jpg", "invalid JPEG: progressive scans end before coefficient 0 of component 1 is complete"),
        ("progressive-memory.jpg", "invalid JPEG: a 4096x4096 progressive JPEG needs 98304 KiB to decode, over the limit of 16384 KiB"),
        ("many-scans.jpg", "invalid JPEG: more than 64 scans"),
        ("huge.gif", "invalid GIF: logical screen: image is 65535x65535, over the limit of 16384 px a side"),
        ("truncated.gif", "invalid GIF: file is truncated: needs 713 bytes, has 705"),
        ("frame-outside.gif", "invalid GIF: frame 2 (16x16 at 56,10) is outside the 64x48 screen"),
        ("truncated-lzw.gif", "invalid GIF: frame 1, row 15 of 32: Image is defective, decoding aborted"),
        ("corrupt-lzw.gif", "invalid GIF: frame 1, row 15 of 32: Image is defective, decoding aborted"),
        ("frames-10000.gif", "invalid GIF: more than 1000 frames"),
        ("frames-8k.gif", "invalid GIF: frames 1-5 hold 335544320 pixels, over the limit of 268435456 for an animation"),
        ("huge.webp", "invalid WebP: image is 16384x16384 = 268435456 pixels, over the limit of 67108864"),
        ("riff-lie.webp", "invalid WebP: file is truncated: RIFF header says 1073741832 bytes, file has 32"),
        ("broken-vp8.webp", "invalid WebP: lossy bitstream: bitstream is truncated"),
        ("broken-vp8l.webp", "invalid WebP: lossless bitstream: bitstream error"),
        ("broken-alpha.webp", "invalid WebP: lossy+alpha bitstream: bitstream error"),
        ("frame-outside.webp", "invalid WebP: frame 3 (40x34 at 30,10) is outside the 64x48 canvas"),
        ("frames-10000.webp", "invalid WebP: more than 1000 frames"),
        ("frames-8k.webp", "invalid WebP: frames 1-5 hold 335544320 pixels, over the limit of 268435456 for an animation"),
        ("lossless-8k.webp", "invalid WebP: a 8192x8192 lossless frame needs 262144 KiB to decode, over the limit of 16384 KiB"),
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
