import AssetCache
import Foundation

/// Reads the MANIFEST argument: a path, or `-` for stdin.
enum ManifestSource {
    static func load(_ argument: String) throws(CommandFailure) -> Manifest {
        let data: Data
        if argument == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            // Refuse an oversized file before reading it into memory.
            if let size = (try? FileManager.default.attributesOfItem(atPath: argument))?[.size] as? Int, size > Manifest.maxSize {
                throw CommandFailure(message: "\(argument): invalid manifest: it is \(size) bytes; the limit is \(Manifest.maxSize)", status: ExitStatus.usage)
            }
            guard let contents = FileManager.default.contents(atPath: argument) else {
                throw CommandFailure(message: "cannot read manifest '\(argument)': no such readable file", status: ExitStatus.usage)
            }
            data = contents
        }
        do {
            return try Manifest.decode(data)
        } catch {
            throw CommandFailure(message: "\(argument): \(error)", status: ExitStatus.usage)
        }
    }
}
