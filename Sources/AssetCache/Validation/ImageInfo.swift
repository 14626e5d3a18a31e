/// What validation learned about an image that passed.
package struct ImageInfo: Sendable, Equatable {
    package var format: ImageFormat
    /// The canvas (GIF: logical screen) of an animation.
    package var width: Int
    package var height: Int
    /// 1 but for animated GIF and WebP; every one of them was decoded.
    package var frames: Int

    package init(format: ImageFormat, width: Int, height: Int, frames: Int = 1) {
        self.format = format
        self.width = width
        self.height = height
        self.frames = frames
    }
}
