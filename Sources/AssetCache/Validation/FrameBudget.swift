/// The frames of a GIF or WebP counted against the limits one at a time, before
/// each is decoded: an animation bomb is refused at the frame that crosses a
/// limit, having cost no more than the limits allow.
struct FrameBudget {
    let limits: ImageLimits
    let canvasWidth: Int
    let canvasHeight: Int
    /// "screen" (GIF) or "canvas" (WebP), for messages.
    let canvasName: String
    private(set) var frames = 0
    private(set) var pixels: Int64 = 0

    init(limits: ImageLimits, width: Int, height: Int, canvasName: String) {
        self.limits = limits
        canvasWidth = width
        canvasHeight = height
        self.canvasName = canvasName
    }

    /// Counts the next frame; the reason it is refused, or nil.
    mutating func admit(x: Int, y: Int, width: Int, height: Int) -> String? {
        frames += 1
        guard frames <= limits.maxFrames else { return "more than \(limits.maxFrames) frames" }
        guard width > 0, height > 0 else { return "frame \(frames) is empty (\(width)x\(height))" }
        guard x >= 0, y >= 0, x + width <= canvasWidth, y + height <= canvasHeight else {
            return "frame \(frames) (\(width)x\(height) at \(x),\(y)) is outside the \(canvasWidth)x\(canvasHeight) \(canvasName)"
        }
        pixels += Int64(width) * Int64(height)
        guard pixels <= limits.maxAnimationPixels else {
            return "frames 1-\(frames) hold \(pixels) pixels, over the limit of \(limits.maxAnimationPixels) for an animation"
        }
        return nil
    }
}
