import AssetCache
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Glibc

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
            data = Self.readStandardInput(limit: Manifest.maxSize + 1)
        } else {
            // Refuse an oversized file before reading it into memory.
            if let size = (try? FileManager.default.attributesOfItem(atPath: argument))?[.size] as? Int, size > Manifest.maxSize {
                throw CommandFailure(message: "\(argument): invalid manifest: it is \(size) bytes, over the limit of \(Manifest.maxSize); ask the server for a smaller one", status: ExitStatus.usage)
            }
            guard let contents = FileManager.default.contents(atPath: argument) else {
                throw CommandFailure(message: "cannot read the manifest '\(argument)': no such readable file; check the path, or pass '-' to read stdin", status: ExitStatus.usage)
            }
            data = contents
        }
        do {
            return try Manifest.decode(data)
        } catch {
            throw CommandFailure(message: "\(argument): \(error); correct it there and run again", status: ExitStatus.usage)
        }
    }

    /// Up to `limit` bytes of stdin: one byte over the manifest limit is enough
    /// to refuse it, however much more the pipe holds.
    private static func readStandardInput(limit: Int) -> Data {
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while data.count < limit {
            let wanted = min(chunk.count, limit - data.count)
            let count = chunk.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, wanted) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            data.append(contentsOf: chunk[..<count])
        }
        return data
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
            let advice = switch error {
            case .unavailable: "; check the URL and the network (the cache was not changed)"
            case .invalid: "; correct it on the server and run again"
            case .storage: "; free some disk space or fix the cache directory's permissions, then run again"
            }
            throw CommandFailure(message: "\(argument): \(error)\(advice)", status: status)
        }
    }
}
