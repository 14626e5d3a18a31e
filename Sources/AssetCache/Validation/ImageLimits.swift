/// How large an image may be before it is refused unread (docs/limits.md). Checked from
/// the header, before any pixel memory is allocated.
public struct ImageLimits: Sendable, Equatable {
    public var maxSide = 16384
    public var maxPixels: Int64 = 64 * 1024 * 1024
    /// The largest single metadata chunk (PNG text/ICC, WebP EXIF/XMP) held in memory.
    public var maxChunkBytes: Int64 = 8 * 1024 * 1024

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
