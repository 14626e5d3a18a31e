#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Glibc

/// Interrupted downloads kept for resume (DESIGN §7): `tmp/partial/<sha256(url)>`
/// holds the bytes so far, `<sha256(url)>.json` the validator for `If-Range`.
/// Writers sweep them once they are a day old.
extension CacheStore {
    private struct PartialValidator: Codable {
        var url: String
        var validator: String
    }

    var partialDirectory: String { "\(tmpDirectory)/partial" }

    private func partialPath(for url: AssetURL) -> String {
        "\(partialDirectory)/\(FileSystem.lastComponent(refPath(for: url)).dropLast(".json".count))"
    }

    /// Keeps what an interrupted transfer wrote; a failure to keep it only costs a refetch.
    func savePartial(_ download: String, for url: AssetURL, resume: TransferRequest.Resume) {
        let path = partialPath(for: url)
        guard (try? FileSystem.makeDirectory(partialDirectory)) != nil,
              let sidecar = try? JSONEncoder().encode(PartialValidator(url: url.string, validator: resume.validator)),
              (try? FileSystem.rename(download, to: path)) != nil else {
            unlink(download)
            return
        }
        if (try? FileSystem.writeAtomically(Array(sidecar), to: "\(path).json", tempDirectory: tmpDirectory)) == nil {
            unlink(path)
        }
    }

    /// Moves a kept partial download to `download` and says where to resume from.
    func takePartial(for url: AssetURL, into download: String) -> TransferRequest.Resume? {
        let path = partialPath(for: url)
        defer { dropPartial(for: url) }
        guard let data = FileManager.default.contents(atPath: "\(path).json"),
              let kept = try? JSONDecoder().decode(PartialValidator.self, from: data), kept.url == url.string,
              let size = FileSystem.size(path), size > 0,
              (try? FileSystem.rename(path, to: download)) != nil else { return nil }
        return TransferRequest.Resume(offset: size, validator: kept.validator)
    }

    func dropPartial(for url: AssetURL) {
        let path = partialPath(for: url)
        unlink(path)
        unlink("\(path).json")
    }
}
