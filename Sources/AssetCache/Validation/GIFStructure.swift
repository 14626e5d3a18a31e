/// Walks a GIF's blocks: header, logical screen, colour tables, images and
/// extensions as chains of sub-blocks, then the trailer. LZW data is not decoded.
enum GIFStructure {
    static func validate(_ reader: BufferedFileReader, limits: ImageLimits) throws(StructureError) -> ImageInfo {
        try reader.skip(6)  // "GIF87a"/"GIF89a", checked by the signature
        let screenWidth = Int(try reader.readUInt16LittleEndian())
        let screenHeight = Int(try reader.readUInt16LittleEndian())
        let screenFlags = try reader.readByte()
        try reader.skip(2)  // background colour, aspect ratio
        try skipColorTable(flags: screenFlags, reader)

        var size: (width: Int, height: Int)? = screenWidth > 0 && screenHeight > 0 ? (screenWidth, screenHeight) : nil
        if let size, let violation = limits.violation(width: size.width, height: size.height) {
            throw .malformed(violation)
        }
        var images = 0
        while true {
            let introducer = try reader.readByte()
            switch introducer {
            case 0x2C:
                try reader.skip(4)  // left, top
                let width = Int(try reader.readUInt16LittleEndian())
                let height = Int(try reader.readUInt16LittleEndian())
                if let violation = limits.violation(width: width, height: height) {
                    throw .malformed("frame \(images + 1): \(violation)")
                }
                try skipColorTable(flags: try reader.readByte(), reader)
                let codeSize = try reader.readByte()
                guard (1...8).contains(codeSize) else {
                    throw .malformed("frame \(images + 1) has LZW minimum code size \(codeSize)")
                }
                try skipSubBlocks(reader)
                images += 1
                // A zero logical screen is tolerated by browsers, which use the first frame's size.
                if size == nil, width > 0, height > 0 { size = (width, height) }
            case 0x21:
                _ = try reader.readByte()  // extension label
                try skipSubBlocks(reader)
            case 0x3B:
                guard images > 0 else { throw .malformed("no image before the trailer") }
                guard let size else { throw .malformed("image has no size (0x0)") }
                return ImageInfo(format: .gif, width: size.width, height: size.height)
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
