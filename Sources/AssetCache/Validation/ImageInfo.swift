/// What validation learned about an image that passed.
package struct ImageInfo: Sendable, Equatable {
    package var format: ImageFormat
    package var width: Int
    package var height: Int

    package init(format: ImageFormat, width: Int, height: Int) {
        self.format = format
        self.width = width
        self.height = height
    }
}
