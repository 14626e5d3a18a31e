import CGIF

/// GIF goes through giflib: every row of every frame is decompressed, so LZW data
/// that is cut short or corrupt is found, not just misplaced blocks. A skim of the
/// blocks (GIFStructure) comes first and refuses animation bombs before any LZW
/// data is decoded.
enum GIFDecoder {
    static func validate(path: String, limits: ImageLimits) throws(StructureError) -> ImageInfo {
        let summary = try GIFStructure.scan(try BufferedFileReader(path: path), limits: limits)
        var error: Int32 = 0
        guard let gif = DGifOpenFileName(path, &error) else {
            if error == D_GIF_ERR_OPEN_FAILED { throw .unreadable("cannot open '\(path)'") }
            throw .malformed(complaint(error))
        }
        defer { DGifCloseFile(gif, nil) }

        // Counted again as giflib sees them: the skim and giflib must not disagree.
        var budget = FrameBudget(limits: limits, width: summary.width, height: summary.height, canvasName: "screen")
        var row: [GifPixelType] = []
        while true {
            var record = UNDEFINED_RECORD_TYPE
            guard DGifGetRecordType(gif, &record) == GIF_OK else { throw failure(gif, "after frame \(budget.frames)") }
            switch record {
            case IMAGE_DESC_RECORD_TYPE:
                guard DGifGetImageDesc(gif) == GIF_OK else { throw failure(gif, "frame \(budget.frames + 1)") }
                let frame = gif.pointee.Image
                let width = Int(frame.Width), height = Int(frame.Height)
                if let violation = budget.admit(x: Int(frame.Left), y: Int(frame.Top), width: width, height: height) {
                    throw .malformed(violation)
                }
                if row.count < width { row = [GifPixelType](repeating: 0, count: width) }
                // Interlaced rows come in pass order; every one is decoded just the same.
                for y in 0..<height {
                    guard DGifGetLine(gif, &row, Int32(width)) == GIF_OK else {
                        throw failure(gif, "frame \(budget.frames), row \(y + 1) of \(height)")
                    }
                }
            case EXTENSION_RECORD_TYPE:
                var code: Int32 = 0
                var block: UnsafeMutablePointer<GifByteType>?
                guard DGifGetExtension(gif, &code, &block) == GIF_OK else { throw failure(gif, "extension") }
                while block != nil {
                    guard DGifGetExtensionNext(gif, &block) == GIF_OK else { throw failure(gif, "extension") }
                }
            case TERMINATE_RECORD_TYPE:
                return ImageInfo(format: .gif, width: summary.width, height: summary.height, frames: budget.frames)
            default:
                throw .malformed("unexpected record after frame \(budget.frames)")
            }
        }
    }

    private static func failure(_ gif: UnsafeMutablePointer<GifFileType>, _ place: String) -> StructureError {
        .malformed("\(place): \(complaint(gif.pointee.Error))")
    }

    private static func complaint(_ code: Int32) -> String {
        GifErrorString(code).map { String(cString: $0) } ?? "giflib error \(code)"
    }
}
