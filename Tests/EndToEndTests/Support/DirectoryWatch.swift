import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Waits for a name to appear in a directory (inotify), so that a test can act at
/// the moment a child creates a file instead of sleeping and polling for it.
final class DirectoryWatch: @unchecked Sendable {
    private let inotify: Int32
    private var wake: [Int32] = [-1, -1]

    init(_ path: String) throws {
        inotify = inotify_init1(Int32(IN_CLOEXEC))
        guard inotify >= 0, inotify_add_watch(inotify, path, UInt32(IN_CREATE) | UInt32(IN_MOVED_TO)) >= 0, pipe(&wake) == 0 else {
            throw SpawnFailure(step: "inotify on \(path)", code: errno)
        }
    }

    deinit {
        close(inotify)
        close(wake[0])
        close(wake[1])
    }

    /// The first name created from now on that starts with `prefix`; nil once
    /// ``stop()`` was called without one.
    func created(prefix: String) async -> String? {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { [self] in continuation.resume(returning: read(prefix: prefix)) }
        }
    }

    /// Ends a wait that nothing will satisfy (the child exited).
    func stop() {
        var byte: UInt8 = 1
        _ = write(wake[1], &byte, 1)
    }

    private func read(prefix: String) -> String? {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            var fds = [pollfd(fd: inotify, events: Int16(POLLIN), revents: 0), pollfd(fd: wake[0], events: Int16(POLLIN), revents: 0)]
            guard poll(&fds, 2, -1) >= 0 || errno == EINTR else { return nil }
            if fds[1].revents != 0 { return nil }
            guard fds[0].revents != 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { Glibc.read(inotify, $0.baseAddress, $0.count) }
            guard count > 0 else { continue }
            var offset = 0
            // struct inotify_event: wd, mask, cookie, len, then `len` bytes of NUL-padded name.
            while offset + 16 <= count {
                let length = buffer[offset + 12..<offset + 16].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
                let nameBytes = buffer[(offset + 16)..<(offset + 16 + length)].prefix { $0 != 0 }
                let name = String(decoding: nameBytes, as: UTF8.self)
                if name.hasPrefix(prefix) { return name }
                offset += 16 + length
            }
        }
    }
}
