/// The image formats an asset may be in; anything else is `invalid_image`.
package enum ImageFormat: String, Sendable {
    case png, jpeg, gif, webp

    /// Recognises a format from the first bytes of a file (at least 12 are needed
    /// to tell WebP from other RIFF files).
    init?(signature bytes: some Collection<UInt8>) {
        let head = Array(bytes.prefix(12))
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if head.starts(with: [0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if head.starts(with: Array("GIF87a".utf8)) || head.starts(with: Array("GIF89a".utf8)) {
            self = .gif
        } else if head.count == 12, head.starts(with: Array("RIFF".utf8)), head[8..<12].elementsEqual("WEBP".utf8) {
            self = .webp
        } else {
            return nil
        }
    }

    static let signatureLength = 12
}
