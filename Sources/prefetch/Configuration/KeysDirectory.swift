import AssetCache
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// `keys.d/` beside a configuration file: one signify public key a file, named
/// `*.pub`, each trusted as a `--trusted-key` is. Adding a key is adding a
/// file, revoking one is deleting it (docs/publishing.md). Other names (an
/// editor's `key.pub~`, `.key.pub.swp`) are left alone, as run-parts does.
enum KeysDirectory {
    /// The key files of `path`, in name order, each read and checked; none
    /// when there is no such directory (open(2) fails with an error of `absent`).
    static func keyFiles(in path: String, absent: Set<Int32>) throws(CommandFailure) -> [String] {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT || absent.contains(code) { return [] }
            let reason = code == ELOOP || code == ENOTDIR ? "it is not a directory (a link is not followed)" : String(cString: strerror(code))
            throw CommandFailure(message: "cannot read keys directory '\(path)': \(reason)", status: ExitStatus.usage)
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            close(fd)
            throw CommandFailure(message: "cannot read keys directory '\(path)': \(String(cString: strerror(errno)))", status: ExitStatus.usage)
        }
        if let problem = FileTrust.problem(path: path, info: info) {
            close(fd)
            throw CommandFailure(message: "refusing keys directory \(problem)", status: ExitStatus.usage)
        }
        guard let stream = fdopendir(fd) else {
            close(fd)
            throw CommandFailure(message: "cannot read keys directory '\(path)': \(String(cString: strerror(errno)))", status: ExitStatus.usage)
        }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasSuffix(".pub"), !name.hasPrefix(".") { names.append(name) }
        }
        let files = names.sorted().map { "\(path)/\($0)" }
        for file in files { try check(file) }
        return files
    }

    /// A key file that is not a key is a mistake to say now, naming it, not a
    /// key quietly missing when a manifest signed with it arrives.
    private static func check(_ file: String) throws(CommandFailure) {
        let opened: (fd: Int32, info: stat)
        switch InputFile.open(file) {
        case .success(let result): opened = result
        case .failure(let refusal): throw CommandFailure(message: "cannot read trusted key '\(file)': \(refusal)", status: ExitStatus.usage)
        }
        defer { close(opened.fd) }
        if let problem = FileTrust.problem(path: file, info: opened.info) {
            throw CommandFailure(message: "refusing trusted key \(problem)", status: ExitStatus.usage)
        }
        do {
            _ = try SignifyPublicKey(readBytes(from: opened.fd, limit: 64 * 1024) ?? Data(), name: file)
        } catch {
            throw CommandFailure(
                message: "trusted key '\(file)' is not a signify public key: \(error); keys.d holds the KEY.pub files that "
                    + "'signify-openbsd -G' writes (other names than *.pub are ignored)",
                status: ExitStatus.usage)
        }
    }
}
