/// Decides whether a downloaded file is an image a message can show (docs/limits.md).
package enum ImageValidator {
    /// Full validation: every format is decoded in full by its reference library —
    /// PNG by libpng, JPEG by libjpeg-turbo, GIF by giflib, WebP by libwebp — one
    /// row at a time where the format allows, every frame of an animation, within
    /// `limits`. Anything else is `.invalidImage` with a message that names what
    /// the bytes look like.
    package static func validate(path: String, limits: ImageLimits = .init()) -> Result<ImageInfo, AssetFailure> {
        let head: [UInt8]
        switch FileHead.read(path: path, count: ContentDescription.sampleLength) {
        case .success(let bytes): head = bytes
        case .failure(let failure): return .failure(failure)
        }
        guard let format = ImageFormat(signature: head) else {
            return .failure(AssetFailure(.invalidImage, "not an image (\(ContentDescription.describe(head)))"))
        }
        switch format {
        case .png: return PNGValidator.validate(path: path, limits: limits)
        case .jpeg: return JPEGDecoder.validate(path: path, limits: limits)
        case .gif: return decoded(.gif) { () throws(StructureError) in try GIFDecoder.validate(path: path, limits: limits) }
        case .webp: return decoded(.webp) { () throws(StructureError) in try WebPDecoder.validate(path: path, limits: limits) }
        }
    }

    private static func decoded(
        _ format: ImageFormat, _ decode: () throws(StructureError) -> ImageInfo
    ) -> Result<ImageInfo, AssetFailure> {
        do throws(StructureError) {
            return .success(try decode())
        } catch {
            switch error {
            case .malformed(let reason): return .failure(AssetFailure(.invalidImage, "invalid \(format.displayName): \(reason)"))
            case .unreadable(let reason): return .failure(AssetFailure(.storage, reason))
            }
        }
    }

    /// Just the signature, for `file` assets that are validated as images only when
    /// their bytes are one. Nil for other content and for unreadable files.
    package static func sniff(path: String) -> ImageFormat? {
        guard case .success(let head) = FileHead.read(path: path, count: ImageFormat.signatureLength) else { return nil }
        return ImageFormat(signature: head)
    }
}

extension ImageFormat {
    var displayName: String {
        switch self {
        case .png: "PNG"
        case .jpeg: "JPEG"
        case .gif: "GIF"
        case .webp: "WebP"
        }
    }
}
