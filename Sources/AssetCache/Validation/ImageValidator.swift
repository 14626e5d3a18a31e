/// Decides whether a downloaded file is an image a message can show (docs/limits.md).
package enum ImageValidator {
    /// Full validation: PNG via CPNG; JPEG/GIF/WebP by structure (signature,
    /// well-formed segments/blocks/RIFF chunks, proper end marker), read with a small
    /// buffer, never the whole file. Anything else is `.invalidImage` with a message
    /// that names what the bytes look like.
    package static func validate(path: String, limits: ImageLimits = .init()) -> Result<ImageInfo, AssetFailure> {
        let head: [UInt8]
        switch FileHead.read(path: path, count: ContentDescription.sampleLength) {
        case .success(let bytes): head = bytes
        case .failure(let failure): return .failure(failure)
        }
        guard let format = ImageFormat(signature: head) else {
            return .failure(AssetFailure(.invalidImage, "not an image (\(ContentDescription.describe(head)))"))
        }
        if format == .png {
            return PNGValidator.validate(path: path, limits: limits)
        }
        do throws(StructureError) {
            let reader = try BufferedFileReader(path: path)
            switch format {
            case .jpeg: return .success(try JPEGStructure.validate(reader, limits: limits))
            case .gif: return .success(try GIFStructure.validate(reader, limits: limits))
            case .webp: return .success(try WebPStructure.validate(reader, limits: limits))
            case .png: preconditionFailure("handled above")
            }
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
