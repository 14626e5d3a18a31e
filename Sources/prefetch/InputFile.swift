#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The files a command reads from outside the cache — the manifest and its
/// `.sig`, trusted keys, header files, `--cacert`, the previous metrics file —
/// are opened one way: without following a link in their last component,
/// without blocking (a FIFO or a device there is refused, never waited on,
/// so no path can hang a run before its time limit starts), and only when
/// they are regular files.
enum InputFile {
    enum Refusal: Error, CustomStringConvertible {
        case cannotOpen(String)
        case link
        case directory
        case notRegular

        var description: String {
            switch self {
            case .cannotOpen(let reason): reason
            case .link: "it is a symbolic link, which is not followed; name the file itself"
            case .directory: "it is a directory"
            case .notRegular: "it is not a regular file (a FIFO, socket or device is never read)"
            }
        }
    }

    /// What an input is called in errors, and what to pass instead of a directory or a device.
    struct Name {
        /// "the manifest", "--cacert".
        var name: String
        /// "the manifest file (or '-' for stdin)".
        var file: String
    }

    /// The one way every input says it cannot be read: exit 2, which input,
    /// the path as given, why, and what to pass instead.
    static func failure(_ refusal: Refusal, reading input: Name, _ path: String) -> CommandFailure {
        let fix: String? = switch refusal {
        case .cannotOpen: "check the path"
        case .directory, .notRegular: "pass \(input.file)"
        case .link: nil  // the refusal says what to do
        }
        return CommandFailure(
            message: "cannot read \(input.name) '\(path)': \(refusal)" + (fix.map { "; \($0)" } ?? ""), status: ExitStatus.usage)
    }

    /// ``read(_:limit:)`` for an input the command cannot do without.
    static func read(_ path: String, limit: Int, as input: Name) throws(CommandFailure) -> Data {
        switch read(path, limit: limit) {
        case .success(let data): data
        case .failure(let refusal): throw failure(refusal, reading: input, path)
        }
    }

    /// An open descriptor of a regular file and its status; the caller closes it.
    static func open(_ path: String) -> Result<(fd: Int32, info: stat), Refusal> {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else {
            let code = errno
            if code == ELOOP { return .failure(.link) }
            return .failure(.cannotOpen(code == ENOENT ? "no such readable file" : String(cString: strerror(code))))
        }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            let isDirectory = info.st_mode & S_IFMT == S_IFDIR
            close(fd)
            return .failure(isDirectory ? .directory : .notRegular)
        }
        return .success((fd, info))
    }

    /// At most `limit` bytes of the file (a longer one comes back cut, which
    /// its parser then refuses).
    static func read(_ path: String, limit: Int) -> Result<Data, Refusal> {
        open(path).flatMap { fd, info in
            defer { close(fd) }
            guard let data = readBytes(from: fd, limit: limit, expected: min(Int(clamping: info.st_size), limit)) else {
                return .failure(.cannotOpen(String(cString: strerror(errno))))
            }
            return .success(data)
        }
    }
}

/// The whole of a small file, or nil when it cannot be read (``InputFile``).
func readSmallFile(_ path: String, limit: Int) -> Data? {
    try? InputFile.read(path, limit: limit).get()
}

/// Up to `limit` bytes from `fd`, reading until end of file or the limit;
/// `expected` (a file's size) saves growing the buffer step by step.
func readBytes(from fd: Int32, limit: Int, expected: Int = 0) -> Data? {
    // Read straight into the result, one byte past `expected` to see the end:
    // no chunk copied over, no page touched twice.
    var data = Data(count: min(max(expected + 1, 64 * 1024), limit))
    var filled = 0
    while filled < limit {
        if filled == data.count { data.count = min(data.count * 2, limit) }
        let count = data.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, $0.count - filled) }
        if count < 0 && errno == EINTR { continue }
        guard count >= 0 else { return nil }
        guard count > 0 else { break }
        filled += count
    }
    data.count = filled
    return data
}
