import AssetCache
import Foundation

/// The MANIFEST argument: a path, `-` for stdin, or an http(s) URL.
struct ManifestSource {
    var argument: String

    var isRemote: Bool {
        let lower = argument.lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }

    func loadLocal() throws(CommandFailure) -> Manifest {
        let data: Data
        if argument == "-" {
            data = FileHandle.standardInput.readData(ofLength: Manifest.maxSize + 1)
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

    func fetch(into store: CacheStore, limits: TransferLimits) async throws(CommandFailure) -> Manifest {
        do {
            return try await RemoteManifest.fetch(argument, store: store, limits: limits)
        } catch {
            let status = switch error {
            case .unavailable: ExitStatus.manifestUnavailable
            case .invalid: ExitStatus.usage
            case .storage: ExitStatus.storage
            }
            throw CommandFailure(message: "\(argument): \(error)", status: status)
        }
    }
}
