#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// `prefetch publish --assets-from DIR`: a folder that mirrors the CDN, the
/// file for `https://cdn.example.com/inapp/a.png` at `DIR/inapp/a.png` (the
/// host is not part of the path). It stands in for the network at one
/// place only, the body's fetch (``AssetPipeline``): what a file holds is
/// then checked, committed and decided exactly as a download's bytes are.
///
/// The paths come from a manifest, so they are hostile: each name is opened
/// beneath DIR's descriptor, none is `..` or `.`, and no link is followed
/// (a link in the mirror is refused, naming it).
package struct LocalMirror: Sendable {
    /// Opened once: every name is looked up beneath this very directory,
    /// whatever its path comes to name meanwhile.
    let root: Directory

    package init(path: String) throws(FileSystem.Failure) {
        root = try Directory.open(path: path)
    }

    /// The mirror with the run's size cap, for the pipeline.
    struct Source: Sendable {
        let mirror: LocalMirror
        let maxAssetSize: Int64

        func fetch(_ request: TransferRequest) -> TransferResult {
            mirror.fetch(request, maxAssetSize: maxAssetSize)
        }
    }

    /// The file for `request`'s URL copied into its location as a download is
    /// written (hashed on the way, cut at the device's size cap); a URL with no
    /// file is the 404 a server without it would answer.
    func fetch(_ request: TransferRequest, maxAssetSize: Int64) -> TransferResult {
        var result = TransferResult(
            url: request.url, effectiveURL: request.url, status: 200, bytes: 0, sha256: "", headers: ResponseHeaders(fields: [:]), attempts: 1, failure: nil)
        let fd: Int32
        switch open(request.url) {
        case .file(let opened): fd = opened
        case .missing(let missing):
            result.status = 404
            result.failure = AssetFailure(.httpStatus, "HTTP 404 from \(request.url): \(missing) (--assets-from)")
            return result
        }
        defer { close(fd) }
        var sink = BodySink(location: request.location)
        defer { sink.closeFile() }
        if let failure = sink.startFresh() { return failed(result, failure) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = read(fd, buffer.baseAddress, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return failed(result, AssetFailure.storage("could not read", mirrorPath(request.url), code: errno)) }
            if count == 0 { break }
            guard sink.bytes + Int64(count) <= maxAssetSize else {
                return failed(result, AttemptFailure.tooLarge(url: request.url, limit: maxAssetSize))
            }
            if let failure = sink.append(UnsafeRawBufferPointer(rebasing: buffer[..<count])) { return failed(result, failure) }
        }
        result.bytes = sink.bytes
        result.sha256 = sink.sha256Hex ?? ""
        return result
    }

    private func failed(_ result: TransferResult, _ failure: AssetFailure) -> TransferResult {
        var result = result
        result.failure = failure
        return result
    }

    /// The URL's path, percent-decoded, as names beneath the root; nil for one
    /// that names no file inside it.
    static func names(of url: String) -> [String]? {
        guard let components = URLComponents(string: url) else { return nil }
        let names = components.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard !names.isEmpty, !names.contains(where: { $0 == "." || $0 == ".." || $0.contains("\0") }) else { return nil }
        return names
    }

    private func mirrorPath(_ url: String) -> String {
        ([root.path] + (Self.names(of: url) ?? [])).joined(separator: "/")
    }

    private enum Opened {
        case file(Int32)
        /// Why there is none, for the 404's message.
        case missing(String)
    }

    /// Descends name by name, never through a link.
    private func open(_ url: String) -> Opened {
        guard let names = Self.names(of: url) else { return .missing("its path names no file inside \(root.path)") }
        do throws(FileSystem.Failure) {
            var directory = root
            for name in names.dropLast() { directory = try directory.openDirectory(name) }
            let fd = try directory.openFile(names.last!, O_RDONLY)
            var info = stat()
            guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
                close(fd)
                return .missing("\(mirrorPath(url)) is not a regular file")
            }
            return .file(fd)
        } catch {
            return .missing(error.code == ELOOP || error.code == ENOTDIR && names.count > 1
                ? "\(error.path) is a symbolic link or not a directory, which is not followed"
                : "\(error)")
        }
    }
}
