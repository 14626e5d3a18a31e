/// A skim of a GIF's blocks before giflib decodes it: logical screen within the
/// limits, every image descriptor counted against the frame limits, LZW data
/// skipped unread. An animation bomb is refused here, in one pass of small reads,
/// before a single frame is decompressed.
enum GIFStructure {
    struct Summary {
        var width: Int
        var height: Int
        var frames: Int
    }

    static func scan(_ reader: BufferedFileReader, limits: ImageLimits) throws(StructureError) -> Summary {
        try reader.skip(6)  // "GIF87a"/"GIF89a", checked by the signature
        let width = Int(try reader.readUInt16LittleEndian())
        let height = Int(try reader.readUInt16LittleEndian())
        let screenFlags = try reader.readByte()
        try reader.skip(2)  // background colour, aspect ratio
        try skipColorTable(flags: screenFlags, reader)
        if let violation = limits.violation(width: width, height: height) { throw .malformed("logical screen: \(violation)") }

        var budget = FrameBudget(limits: limits, width: width, height: height, canvasName: "screen")
        while true {
            let introducer = try reader.readByte()
            switch introducer {
            case 0x2C:
                let left = Int(try reader.readUInt16LittleEndian())
                let top = Int(try reader.readUInt16LittleEndian())
                let frameWidth = Int(try reader.readUInt16LittleEndian())
                let frameHeight = Int(try reader.readUInt16LittleEndian())
                if let violation = budget.admit(x: left, y: top, width: frameWidth, height: frameHeight) {
                    throw .malformed(violation)
                }
                try skipColorTable(flags: try reader.readByte(), reader)
                let codeSize = try reader.readByte()
                guard (1...8).contains(codeSize) else {
                    throw .malformed("frame \(budget.frames) has LZW minimum code size \(codeSize)")
                }
                try skipSubBlocks(reader)
            case 0x21:
                _ = try reader.readByte()  // extension label
                try skipSubBlocks(reader)
            case 0x3B:
                guard budget.frames > 0 else { throw .malformed("no image before the trailer") }
                return Summary(width: width, height: height, frames: budget.frames)
            default:
                throw .malformed(
                    "unexpected byte 0x\(introducer.twoHexDigits) at offset \(reader.offset - 1) (expected an image, extension or trailer)"
                )
            }
        }
    }

    private static func skipColorTable(flags: UInt8, _ reader: BufferedFileReader) throws(StructureError) {
        guard flags & 0x80 != 0 else { return }
        try reader.skip(3 << (Int64(flags & 0x07) + 1))
    }

    private static func skipSubBlocks(_ reader: BufferedFileReader) throws(StructureError) {
        while true {
            let length = try reader.readByte()
            if length == 0 { return }
            try reader.skip(Int64(length))
        }
    }
}
