/// How large an image may be before it is refused unread (docs/limits.md). Checked from
/// the header, before any pixel memory is allocated.
public struct ImageLimits: Sendable, Equatable {
    public var maxSide = 16384
    /// Per frame, and for a GIF's logical screen or a WebP's canvas.
    public var maxPixels: Int64 = 64 * 1024 * 1024
    /// The largest single metadata chunk (PNG text/ICC, WebP EXIF/XMP) held in memory.
    public var maxChunkBytes: Int64 = 8 * 1024 * 1024
    /// Frames of an animated GIF or WebP.
    public var maxFrames = 1000
    /// Pixels summed over the frames of an animation: ten thousand tiny frames and
    /// a hundred huge ones cost the same to decode.
    public var maxAnimationPixels: Int64 = 256 * 1024 * 1024
    /// What one decoder may hold beyond a few rows: the coefficients of a whole
    /// progressive JPEG (2 bytes a sample), the pixels of a lossless WebP frame
    /// (4 bytes each), a WebP alpha plane and the compressed frame. Two decoders
    /// run at once (`PrefetchOptions.validationWorkers`), so this is what keeps a
    /// run's peak memory bounded whatever the image; 16 MiB admits a 4:2:0
    /// progressive JPEG of 5.5 Mpx and a lossless WebP of 4 Mpx.
    public var maxDecoderMemory: Int64 = 16 * 1024 * 1024

    public init() {}

    /// The reason a `width`×`height` image is refused, or nil when it is within limits.
    func violation(width: Int, height: Int) -> String? {
        if width > maxSide || height > maxSide {
            return "image is \(width)x\(height), over the limit of \(maxSide) px a side"
        }
        let pixels = Int64(width) * Int64(height)
        if pixels > maxPixels {
            return "image is \(width)x\(height) = \(pixels) pixels, over the limit of \(maxPixels)"
        }
        return nil
    }
}
