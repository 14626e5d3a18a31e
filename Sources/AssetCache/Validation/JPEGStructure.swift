/// Walks a JPEG's marker segments: SOI, well-formed tables and one frame header,
/// at least one scan, then EOI. Pixels are not decoded; the structure is what a
/// truncated download or an error page saved as .jpg gets wrong.
enum JPEGStructure {
    static func validate(_ reader: BufferedFileReader, limits: ImageLimits) throws(StructureError) -> ImageInfo {
        guard try reader.readByte() == 0xFF, try reader.readByte() == 0xD8 else {
            throw .malformed("missing SOI marker")
        }
        var frame: (width: Int, height: Int)?
        var scans = 0
        var marker = try nextMarker(reader)
        while true {
            switch marker {
            case 0xD9:
                guard let frame else { throw .malformed("EOI before any frame header (SOF)") }
                guard scans > 0 else { throw .malformed("EOI before any image data (SOS)") }
                return ImageInfo(format: .jpeg, width: frame.width, height: frame.height)
            case 0xD8:
                throw .malformed("second SOI marker at offset \(reader.offset - 2)")
            case 0x01, 0xD0...0xD7:
                // Standalone markers carry no length.
                marker = try nextMarker(reader)
                continue
            default:
                break
            }
            let length = Int(try reader.readUInt16BigEndian())
            guard length >= 2 else { throw .malformed("segment \(name(marker)) has length \(length)") }
            let payloadLength = length - 2
            switch marker {
            case 0xC0...0xC3, 0xC5...0xC7, 0xC9...0xCB, 0xCD...0xCF:
                guard frame == nil else { throw .malformed("more than one frame header (SOF)") }
                let found = try frameSize(try reader.readBytes(payloadLength))
                if let violation = limits.violation(width: found.width, height: found.height) {
                    throw .malformed(violation)
                }
                frame = found
            case 0xC4:
                try checkHuffmanTables(try reader.readBytes(payloadLength))
            case 0xDB:
                try checkQuantizationTables(try reader.readBytes(payloadLength))
            case 0xDD:
                guard payloadLength == 2 else { throw .malformed("DRI segment has length \(length), not 4") }
                try reader.skip(2)
            case 0xDA:
                guard frame != nil else { throw .malformed("scan (SOS) before the frame header (SOF)") }
                try checkScanHeader(try reader.readBytes(payloadLength))
                let dataStart = reader.offset
                marker = try markerAfterEntropyData(reader)
                guard reader.offset - 2 > dataStart else { throw .malformed("scan \(scans + 1) has no data") }
                scans += 1
                continue
            default:
                // APPn, COM, DNL and the like: only their length matters here.
                try reader.skip(Int64(payloadLength))
            }
            marker = try nextMarker(reader)
        }
    }

    private static func nextMarker(_ reader: BufferedFileReader) throws(StructureError) -> UInt8 {
        let byte = try reader.readByte()
        guard byte == 0xFF else {
            throw .malformed("expected a marker at offset \(reader.offset - 1), found 0x\(byte.twoHexDigits)")
        }
        var code = try reader.readByte()
        while code == 0xFF { code = try reader.readByte() }
        guard code != 0x00 else { throw .malformed("stray 0xFF00 at offset \(reader.offset - 2)") }
        return code
    }

    /// Entropy-coded data ends at the first 0xFF that is neither byte stuffing
    /// (0xFF00) nor a restart marker; that marker is returned.
    private static func markerAfterEntropyData(_ reader: BufferedFileReader) throws(StructureError) -> UInt8 {
        while true {
            do {
                try reader.skip(through: 0xFF)
            } catch .malformed {
                throw .malformed("file is truncated inside scan data (no EOI marker)")
            }
            var code = try reader.readByte()
            while code == 0xFF { code = try reader.readByte() }
            if code == 0x00 || (0xD0...0xD7).contains(code) { continue }
            return code
        }
    }

    private static func frameSize(_ payload: [UInt8]) throws(StructureError) -> (width: Int, height: Int) {
        guard payload.count >= 6 else { throw .malformed("frame header (SOF) is \(payload.count + 2) bytes long") }
        let height = Int(payload[1]) << 8 | Int(payload[2])
        let width = Int(payload[3]) << 8 | Int(payload[4])
        let components = Int(payload[5])
        guard (1...4).contains(components), payload.count == 6 + 3 * components else {
            throw .malformed("frame header (SOF) declares \(components) components in \(payload.count + 2) bytes")
        }
        for index in 0..<components {
            let sampling = payload[6 + 3 * index + 1]
            guard (1...4).contains(sampling >> 4), (1...4).contains(sampling & 0x0F), payload[6 + 3 * index + 2] <= 3 else {
                throw .malformed("frame header (SOF) component \(index + 1) is malformed")
            }
        }
        guard width > 0, height > 0 else {
            throw .malformed("frame header (SOF) declares a \(width)x\(height) image")
        }
        return (width, height)
    }

    private static func checkHuffmanTables(_ payload: [UInt8]) throws(StructureError) {
        var index = 0
        repeat {
            guard payload.count - index >= 17 else { throw .malformed("Huffman table (DHT) is truncated") }
            let classAndID = payload[index]
            guard classAndID >> 4 <= 1, classAndID & 0x0F <= 3 else {
                throw .malformed("Huffman table (DHT) has class/id 0x\(classAndID.twoHexDigits)")
            }
            let symbols = payload[(index + 1)...(index + 16)].reduce(0) { $0 + Int($1) }
            guard symbols <= 256, payload.count - index - 17 >= symbols else {
                throw .malformed("Huffman table (DHT) declares \(symbols) symbols in too few bytes")
            }
            index += 17 + symbols
        } while index < payload.count
    }

    private static func checkQuantizationTables(_ payload: [UInt8]) throws(StructureError) {
        var index = 0
        repeat {
            guard index < payload.count else { throw .malformed("quantization table (DQT) is empty") }
            let precisionAndID = payload[index]
            guard precisionAndID >> 4 <= 1, precisionAndID & 0x0F <= 3 else {
                throw .malformed("quantization table (DQT) has precision/id 0x\(precisionAndID.twoHexDigits)")
            }
            let size = 1 + 64 * (Int(precisionAndID >> 4) + 1)
            guard payload.count - index >= size else { throw .malformed("quantization table (DQT) is truncated") }
            index += size
        } while index < payload.count
    }

    private static func checkScanHeader(_ payload: [UInt8]) throws(StructureError) {
        guard let components = payload.first.map(Int.init), (1...4).contains(components),
              payload.count == 4 + 2 * components
        else { throw .malformed("scan header (SOS) is malformed") }
    }

    private static func name(_ marker: UInt8) -> String { "0xFF\(marker.twoHexDigits)" }
}
