/// The first bytes of a file: enough to recognise a format or describe what it is.
enum FileHead {
    static func read(path: String, count: Int) -> Result<[UInt8], AssetFailure> {
        do throws(StructureError) {
            let reader = try BufferedFileReader(path: path, bufferSize: max(count, 1))
            return .success(try reader.readBytes(Int(min(Int64(count), reader.fileSize))))
        } catch {
            switch error {
            case .malformed(let reason), .unreadable(let reason): return .failure(AssetFailure(.storage, reason))
            }
        }
    }
}
