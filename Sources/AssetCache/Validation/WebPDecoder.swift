import CWebP

/// WebP goes through libwebp: lossy, lossless and alpha bitstreams, and every frame
/// of an animation, which the demuxer hands over one at a time. A walk over the
/// RIFF chunks (WebPStructure) comes first and refuses animation bombs before the
/// demuxer sees them.
enum WebPDecoder {
    static func validate(path: String, limits: ImageLimits) throws(StructureError) -> ImageInfo {
        let summary = try WebPStructure.scan(try BufferedFileReader(path: path), limits: limits)
        let file = try MappedFile(path: path)
        var data = WebPData(bytes: file.bytes.assumingMemoryBound(to: UInt8.self), size: file.size)
        guard let demux = WebPDemux(&data) else { throw .malformed("libwebp cannot parse the RIFF container") }
        defer { WebPDemuxDelete(demux) }
        let width = Int(WebPDemuxGetI(demux, WEBP_FF_CANVAS_WIDTH))
        let height = Int(WebPDemuxGetI(demux, WEBP_FF_CANVAS_HEIGHT))
        if let violation = limits.violation(width: width, height: height) { throw .malformed(violation) }

        var budget = FrameBudget(limits: limits, width: width, height: height, canvasName: "canvas")
        var frame = WebPIterator()
        guard WebPDemuxGetFrame(demux, 1, &frame) != 0 else { throw .malformed("no frame") }
        defer { WebPDemuxReleaseIterator(&frame) }
        repeat {
            let number = budget.frames + 1
            let place = summary.frames > 1 ? "frame \(number): " : ""
            if let violation = budget.admit(x: Int(frame.x_offset), y: Int(frame.y_offset),
                                            width: Int(frame.width), height: Int(frame.height)) {
                throw .malformed(violation)
            }
            do throws(StructureError) {
                try decode(frame.fragment, limits: limits)
            } catch {
                guard case .malformed(let reason) = error else { throw error }
                throw .malformed(place + reason)
            }
            file.release(UnsafeRawPointer(frame.fragment.bytes), count: frame.fragment.size)
        } while WebPDemuxNextFrame(&frame) != 0
        return ImageInfo(format: .webp, width: width, height: height, frames: budget.frames)
    }

    /// Decodes every pixel of one frame, scaled down as it goes to a 64th a side:
    /// what is checked is the bitstream, and the rescaler keeps the output small.
    private static func decode(_ bitstream: WebPData, limits: ImageLimits) throws(StructureError) {
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else { throw .malformed("libwebp has an unexpected version") }
        var status = WebPGetFeatures(bitstream.bytes, bitstream.size, &config.input)
        guard status == VP8_STATUS_OK else { throw .malformed(describe(status)) }
        let features = config.input
        let need = memory(features, compressed: bitstream.size)
        guard need <= limits.maxDecoderMemory else {
            throw .malformed(
                "a \(features.width)x\(features.height) \(kind(features)) frame needs \(need >> 10) KiB to decode, "
                    + "over the limit of \(limits.maxDecoderMemory >> 10) KiB")
        }
        config.output.colorspace = MODE_RGBA
        config.options.use_scaling = 1
        config.options.scaled_width = (features.width + 63) / 64
        config.options.scaled_height = (features.height + 63) / 64
        status = WebPDecode(bitstream.bytes, bitstream.size, &config)
        WebPFreeDecBuffer(&config.output)
        guard status == VP8_STATUS_OK else { throw .malformed("\(kind(features)) bitstream: \(describe(status))") }
    }

    /// What libwebp holds while decoding a frame, beyond rows: a lossless frame's
    /// pixels (4 bytes each), an alpha plane and the buffer of its own lossless
    /// coding (a byte each), and the compressed frame itself.
    private static func memory(_ features: WebPBitstreamFeatures, compressed: Int) -> Int64 {
        let pixels = Int64(features.width) * Int64(features.height)
        var bytes = Int64(compressed)
        if features.format == 2 { bytes += 4 * pixels } else if features.has_alpha != 0 { bytes += 2 * pixels }
        return bytes
    }

    private static func kind(_ features: WebPBitstreamFeatures) -> String {
        features.format == 2 ? "lossless" : features.has_alpha != 0 ? "lossy+alpha" : "lossy"
    }

    private static func describe(_ status: VP8StatusCode) -> String {
        switch status {
        case VP8_STATUS_OUT_OF_MEMORY: "out of memory"
        case VP8_STATUS_INVALID_PARAM: "invalid parameter"
        case VP8_STATUS_BITSTREAM_ERROR: "bitstream error"
        case VP8_STATUS_UNSUPPORTED_FEATURE: "unsupported feature"
        case VP8_STATUS_NOT_ENOUGH_DATA: "bitstream is truncated"
        default: "libwebp status \(status.rawValue)"
        }
    }
}
