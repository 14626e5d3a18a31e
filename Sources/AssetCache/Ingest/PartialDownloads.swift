#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Interrupted downloads kept for resume (docs/cache-format.md): `tmp/partial/<sha256(url)>`
/// holds the bytes so far, `<sha256(url)>.json` the validator for `If-Range`.
/// Writers sweep them once they are a day old.
extension CacheStore {
    private struct PartialValidator: Codable {
        var url: String
        var validator: String
    }

    private func partialName(for url: AssetURL) -> String {
        String(refName(for: url).dropLast(".json".count))
    }

    /// Keeps what an interrupted transfer wrote; a failure to keep it only costs a refetch.
    func savePartial(_ download: FileLocation, for url: AssetURL, resume: TransferRequest.Resume) {
        let name = partialName(for: url)
        if let sidecar = try? JSONEncoder().encode(PartialValidator(url: url.string, validator: resume.validator)) {
            if keepPartial(download, as: name, sidecar: sidecar) { return }
            // A full disk, often why the transfer stopped: the body's last
            // bytes make room for the sidecar (and the directory), once.
            if Self.shorten(download, by: Self.partialGiveBack), keepPartial(download, as: name, sidecar: sidecar) { return }
        }
        download.directory.unlink(download.name)
    }

    /// What a partial body gives back when the disk is too full for its sidecar.
    private static let partialGiveBack: off_t = 64 << 10

    /// The body in `partial/`, with its sidecar; false (the body back where it
    /// was) when either cannot be written.
    private func keepPartial(_ download: FileLocation, as name: String, sidecar: Data) -> Bool {
        guard let partials = try? Self.ensureDirectory("partial", in: tmp, private: true, logger: logger),
              (try? download.directory.rename(download.name, to: partials, as: name)) != nil else { return false }
        do {
            try FileSystem.writeAtomically(Array(sidecar), to: partials, as: "\(name).json", temporary: tmp, mode: Self.privateFileMode)
            return true
        } catch {
            if (try? partials.rename(name, to: download.directory, as: download.name)) == nil { partials.unlink(name) }
            return false
        }
    }

    /// Cuts `bytes` off the end of the file; false when nothing would be left.
    private static func shorten(_ file: FileLocation, by bytes: off_t) -> Bool {
        guard let info = file.directory.status(file.name), info.st_size > bytes,
              let fd = try? file.directory.openFile(file.name, O_WRONLY) else { return false }
        defer { close(fd) }
        return ftruncate(fd, info.st_size - bytes) == 0
    }

    /// Moves a kept partial download to `download` and says where to resume from.
    func takePartial(for url: AssetURL, into download: FileLocation) -> TransferRequest.Resume? {
        let name = partialName(for: url)
        defer { dropPartial(for: url) }
        guard let partials = try? tmp.openDirectory("partial"),
              let bytes = partials.contents(of: "\(name).json"),
              let kept = try? JSONDecoder().decode(PartialValidator.self, from: Data(bytes)), kept.url == url.string,
              let info = partials.status(name), info.st_mode & S_IFMT == S_IFREG, info.st_size > 0,
              (try? partials.rename(name, to: download.directory, as: download.name)) != nil else { return nil }
        return TransferRequest.Resume(offset: Int64(info.st_size), validator: kept.validator)
    }

    func dropPartial(for url: AssetURL) {
        guard let partials = try? tmp.openDirectory("partial") else { return }
        let name = partialName(for: url)
        partials.unlink(name)
        partials.unlink("\(name).json")
    }
}
