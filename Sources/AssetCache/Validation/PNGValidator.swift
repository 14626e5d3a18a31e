import CPNG

/// PNG goes through libpng (in CPNG) rather than a structure walk: CRCs of every
/// chunk and a full decode of every row are what catch corrupt downloads.
enum PNGValidator {
    static func validate(path: String, limits: ImageLimits) -> Result<ImageInfo, AssetFailure> {
        let result = cpng_validate_file(
            path,
            UInt32(clamping: limits.maxSide),
            UInt64(clamping: limits.maxPixels),
            UInt64(clamping: limits.maxChunkBytes)
        )
        guard result.ok == 1 else {
            return .failure(AssetFailure(.invalidImage, "invalid PNG: \(fixedCString(result.message))"))
        }
        return .success(ImageInfo(format: .png, width: Int(result.width), height: Int(result.height)))
    }
}
