import CJPEG

/// JPEG goes through libjpeg-turbo (in CJPEG), every scanline of every scan:
/// baseline, progressive and arithmetic-coded alike. libjpeg merely warns about
/// a scan of random bytes or one cut short and shows grey blocks; CJPEG makes
/// each such warning the reason the image is refused.
enum JPEGDecoder {
    /// Far above the ten or so scans encoders write (jpegtran's scan scripts stop
    /// at 100); each scan walks the whole coefficient buffer, so a valid file of
    /// thousands of them would cost seconds.
    static let maxScans: UInt32 = 64

    static func validate(path: String, limits: ImageLimits) -> Result<ImageInfo, AssetFailure> {
        let result = cjpeg_validate_file(
            path,
            UInt32(clamping: limits.maxSide),
            UInt64(clamping: limits.maxPixels),
            UInt64(clamping: limits.maxDecoderMemory),
            maxScans
        )
        guard result.ok == 1 else {
            return .failure(AssetFailure(.invalidImage, "invalid JPEG: \(fixedCString(result.message))"))
        }
        return .success(ImageInfo(format: .jpeg, width: Int(result.width), height: Int(result.height)))
    }
}
