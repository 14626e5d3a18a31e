import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A size-limited tmpfs of a test's own, for the free-space floor
/// (docs/limits.md#free-space): mounted with mount(2), which needs root
/// (CAP_SYS_ADMIN) — the suite runs as root here and in CI, and fails, not
/// skips, without it. Unmounted by ``unmount()`` (and, lazily, when dropped).
final class SmallFileSystem {
    let path: String
    private var mounted = false

    struct MountFailure: Error, CustomStringConvertible {
        var description: String
    }

    init(at path: String, bytes: Int) throws {
        self.path = path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard mount("tmpfs", path, "tmpfs", 0, "size=\(bytes),mode=0755") == 0 else {
            let code = errno
            throw MountFailure(description: "mount -t tmpfs -o size=\(bytes) tmpfs \(path) failed: \(String(cString: strerror(code)))"
                + (code == EPERM ? "; this test mounts a small file system and must run as root (CAP_SYS_ADMIN)" : ""))
        }
        mounted = true
    }

    deinit { unmount() }

    func unmount() {
        guard mounted else { return }
        mounted = false
        // Lazily: a process of the test still holding a descriptor there does not keep it.
        _ = umount2(path, Int32(MNT_DETACH))
    }

    /// What statvfs says an unprivileged program may still take, and the size.
    var space: (free: Int, size: Int) {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return (0, 0) }
        return (Int(info.f_bavail) * Int(info.f_frsize), Int(info.f_blocks) * Int(info.f_frsize))
    }

    /// A file of `bytes` zeros written for real (tmpfs keeps every page).
    func fill(_ name: String, bytes: Int) throws {
        let chunk = Data(count: 1 << 20)
        _ = FileManager.default.createFile(atPath: "\(path)/\(name)", contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: "\(path)/\(name)"))
        defer { try? handle.close() }
        var left = bytes
        while left > 0 {
            let piece = min(left, chunk.count)
            try handle.write(contentsOf: chunk.prefix(piece))
            left -= piece
        }
    }

    /// Another program giving space back: the file cut to `bytes`.
    func shrink(_ name: String, to bytes: Int) {
        _ = truncate("\(path)/\(name)", off_t(bytes))
    }
}

/// Samples the free space of a file system on a thread of its own while a
/// run goes on, and keeps the least it saw: the floor must hold during the
/// run, not only at its end.
final class FreeSpaceWatch: @unchecked Sendable {
    private let path: String
    private let state = Mutex<(stop: Bool, lowest: Int, samples: Int)>((false, .max, 0))
    private let done = DispatchSemaphore(value: 0)

    init(_ path: String) {
        self.path = path
        Thread.detachNewThread { [self] in
            while !state.withLock({ $0.stop }) {
                var info = statvfs()
                if statvfs(path, &info) == 0 {
                    let free = Int(info.f_bavail) * Int(info.f_frsize)
                    state.withLock { $0.lowest = min($0.lowest, free); $0.samples += 1 }
                }
                // Free space has no event to await (inotify and fanotify tell
                // of writes, not of the file system's free blocks), so it is
                // sampled, every 200 µs: a run writes a 16 KiB chunk in less.
                usleep(200)
            }
            done.signal()
        }
    }

    /// The least free space seen, and how many samples were taken.
    func stop() -> (lowest: Int, samples: Int) {
        state.withLock { $0.stop = true }
        done.wait()
        return state.withLock { ($0.lowest, $0.samples) }
    }
}
