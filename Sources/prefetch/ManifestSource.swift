import AssetCache
import Foundation

/// Reads the MANIFEST argument: a path, or `-` for stdin.
enum ManifestSource {
    static func load(_ argument: String) throws(CommandFailure) -> Manifest {
        let data: Data
        if argument == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
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
