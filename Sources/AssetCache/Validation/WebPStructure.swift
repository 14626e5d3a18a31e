/// Walks a WebP's RIFF chunks: a RIFF size that matches the file, chunks that fit
/// inside it, and a VP8, VP8L or VP8X (with image data) bitstream header whose
/// dimensions are within limits. The bitstream itself is not decoded.
enum WebPStructure {
    private static let imageChunks: Set<String> = ["VP8 ", "VP8L", "ALPH", "ANMF"]

    static func validate(_ reader: BufferedFileReader, limits: ImageLimits) throws(StructureError) -> ImageInfo {
        try reader.skip(4)  // "RIFF"
        let riffSize = Int64(try reader.readUInt32LittleEndian())
        try reader.skip(4)  // "WEBP"
        guard riffSize >= 4 + 8 else { throw .malformed("RIFF size \(riffSize) is too small for any chunk") }
        let end = 8 + riffSize
        guard end <= reader.fileSize else {
            throw .malformed("file is truncated: RIFF header says \(end) bytes, file has \(reader.fileSize)")
        }

        var canvas: (width: Int, height: Int, animated: Bool)?
        var bitstream: (width: Int, height: Int)?
        var frames = 0
        var first = true
        while reader.offset < end {
            guard end - reader.offset >= 8 else { throw .malformed("chunk header at offset \(reader.offset) is cut off") }
            let fourCC = String(decoding: try reader.readBytes(4), as: UTF8.self)
            let size = Int64(try reader.readUInt32LittleEndian())
            guard size <= end - reader.offset else {
                throw .malformed("chunk '\(fourCC)' of \(size) bytes runs past the end of the RIFF data")
            }
            if first, !["VP8 ", "VP8L", "VP8X"].contains(fourCC) {
                throw .malformed("first chunk is '\(fourCC)', not VP8, VP8L or VP8X")
            }
            first = false
            if !imageChunks.contains(fourCC), fourCC != "VP8X", size > limits.maxChunkBytes {
                throw .malformed("chunk '\(fourCC)' is \(size) bytes, over the limit of \(limits.maxChunkBytes)")
            }
            var consumed: Int64 = 0
            switch fourCC {
            case "VP8X":
                guard canvas == nil, size >= 10 else { throw .malformed("VP8X chunk is malformed or repeated") }
                let header = try reader.readBytes(10)
                consumed = 10
                canvas = (1 + uint24(header, at: 4), 1 + uint24(header, at: 7), header[0] & 0x02 != 0)
            case "VP8 ", "VP8L":
                guard bitstream == nil else { throw .malformed("more than one '\(fourCC)' bitstream chunk") }
                let headerSize = fourCC == "VP8 " ? 10 : 5
                guard size >= Int64(headerSize) else { throw .malformed("'\(fourCC)' chunk is \(size) bytes") }
                let header = try reader.readBytes(headerSize)
                consumed = Int64(headerSize)
                bitstream = fourCC == "VP8 " ? try lossySize(header, chunkSize: size) : try losslessSize(header)
            case "ANMF":
                frames += 1
            default:
                break
            }
            try reader.skip(size - consumed)
            if size % 2 == 1, reader.offset < end { try reader.skip(1) }
        }

        let size: (width: Int, height: Int)
        if let canvas {
            if canvas.animated {
                guard frames > 0 else { throw .malformed("animated WebP has no frames (ANMF)") }
            } else {
                guard let bitstream else { throw .malformed("VP8X file has no image data (VP8 or VP8L chunk)") }
                guard bitstream == (canvas.width, canvas.height) else {
                    throw .malformed(
                        "bitstream is \(bitstream.width)x\(bitstream.height) but the canvas is \(canvas.width)x\(canvas.height)"
                    )
                }
            }
            size = (canvas.width, canvas.height)
        } else if let bitstream {
            size = bitstream
        } else {
            throw .malformed("no image data")
        }
        if let violation = limits.violation(width: size.width, height: size.height) { throw .malformed(violation) }
        return ImageInfo(format: .webp, width: size.width, height: size.height)
    }

    /// VP8 key frame header (RFC 6386 §9.1): frame tag, start code, 14-bit sizes.
    private static func lossySize(_ header: [UInt8], chunkSize: Int64) throws(StructureError) -> (width: Int, height: Int) {
        let tag = Int(header[0]) | Int(header[1]) << 8 | Int(header[2]) << 16
        guard tag & 1 == 0 else { throw .malformed("VP8 bitstream does not start with a key frame") }
        guard (tag >> 1) & 7 <= 3, (tag >> 4) & 1 == 1 else { throw .malformed("VP8 frame header is malformed") }
        guard Int64(tag >> 5) <= chunkSize - 10 else { throw .malformed("VP8 first partition runs past its chunk") }
        guard header[3] == 0x9D, header[4] == 0x01, header[5] == 0x2A else {
            throw .malformed("VP8 start code is missing")
        }
        let width = (Int(header[6]) | Int(header[7]) << 8) & 0x3FFF
        let height = (Int(header[8]) | Int(header[9]) << 8) & 0x3FFF
        guard width > 0, height > 0 else { throw .malformed("VP8 frame is \(width)x\(height)") }
        return (width, height)
    }

    /// VP8L header: signature 0x2F, 14-bit width-1 and height-1, alpha bit, version 0.
    private static func losslessSize(_ header: [UInt8]) throws(StructureError) -> (width: Int, height: Int) {
        guard header[0] == 0x2F else { throw .malformed("VP8L signature is 0x\(header[0].twoHexDigits), not 0x2F") }
        let bits = header[1...4].reversed().reduce(0) { $0 << 8 | Int($1) }
        guard bits >> 29 == 0 else { throw .malformed("VP8L version \(bits >> 29) is not 0") }
        return ((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
    }

    private static func uint24(_ bytes: [UInt8], at index: Int) -> Int {
        Int(bytes[index]) | Int(bytes[index + 1]) << 8 | Int(bytes[index + 2]) << 16
    }
}
