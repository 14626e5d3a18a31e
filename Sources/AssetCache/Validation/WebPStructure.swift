/// A walk over a WebP's RIFF chunks before libwebp decodes it: a RIFF size that
/// matches the file, chunks that fit inside it, metadata chunks within the chunk
/// limit, and for an animation every ANMF frame inside the canvas and counted
/// against the frame limits. libwebp's demuxer keeps a record per frame, so an
/// animation bomb must be refused here, before it is demuxed.
enum WebPStructure {
    private static let imageChunks: Set<String> = ["VP8 ", "VP8L", "ALPH", "ANMF"]

    /// The canvas when the file has a VP8X header (else the bitstream's own size
    /// is the canvas, which libwebp reads), and the number of frames.
    struct Summary {
        var canvas: (width: Int, height: Int)?
        var frames: Int
    }

    static func scan(_ reader: BufferedFileReader, limits: ImageLimits) throws(StructureError) -> Summary {
        try reader.skip(4)  // "RIFF"
        let riffSize = Int64(try reader.readUInt32LittleEndian())
        try reader.skip(4)  // "WEBP"
        guard riffSize >= 4 + 8 else { throw .malformed("RIFF size \(riffSize) is too small for any chunk") }
        let end = 8 + riffSize
        guard end <= reader.fileSize else {
            throw .malformed("file is truncated: RIFF header says \(end) bytes, file has \(reader.fileSize)")
        }

        var canvas: (width: Int, height: Int)?
        var budget: FrameBudget?
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
                let width = 1 + uint24(header, at: 4), height = 1 + uint24(header, at: 7)
                if let violation = limits.violation(width: width, height: height) { throw .malformed("canvas: \(violation)") }
                canvas = (width, height)
                budget = FrameBudget(limits: limits, width: width, height: height, canvasName: "canvas")
            case "ANMF":
                guard size >= 16, budget != nil else { throw .malformed("ANMF chunk is malformed or comes before VP8X") }
                let header = try reader.readBytes(16)
                consumed = 16
                let x = 2 * uint24(header, at: 0), y = 2 * uint24(header, at: 3)
                let width = 1 + uint24(header, at: 6), height = 1 + uint24(header, at: 9)
                if let violation = budget?.admit(x: x, y: y, width: width, height: height) { throw .malformed(violation) }
            default:
                break
            }
            try reader.skip(size - consumed)
            if size % 2 == 1, reader.offset < end { try reader.skip(1) }
        }
        return Summary(canvas: canvas, frames: max(1, budget?.frames ?? 1))
    }

    private static func uint24(_ bytes: [UInt8], at index: Int) -> Int {
        Int(bytes[index]) | Int(bytes[index + 1]) << 8 | Int(bytes[index + 2]) << 16
    }
}
