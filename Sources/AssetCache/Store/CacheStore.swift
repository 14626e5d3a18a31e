import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Glibc

/// The content-addressed cache on disk (DESIGN §7). The layout is the documentation:
///
///     FORMAT                      "asset-cache 1"
///     lock                        flock(2) target for writers
///     objects/ab/<sha256>         immutable blobs, mode 0444
///     trees/ab/<sha256>/…         unpacked ZIPs, keyed by the ZIP's sha256
///     refs/<sha256(url)>.json     url → object, validators
///     tmp/                        in-flight downloads and half-unpacked trees
///
/// Everything is written in `tmp/`, synced, then renamed into place, and an object
/// or tree is durable before the ref that names it, so readers never see a partial
/// file and a crash leaves either nothing or a complete entry.
public final class CacheStore: Sendable {
    package static let formatLine = "asset-cache 1"

    public let root: String
    private let lockDescriptor: Int32?

    private init(root: String, lockDescriptor: Int32?) {
        self.root = root
        self.lockDescriptor = lockDescriptor
    }

    deinit {
        if let lockDescriptor { close(lockDescriptor) }
    }

    package var objectsDirectory: String { "\(root)/objects" }
    package var treesDirectory: String { "\(root)/trees" }
    package var refsDirectory: String { "\(root)/refs" }
    package var tmpDirectory: String { "\(root)/tmp" }

    package func objectPath(_ sha256: String) -> String { "\(objectsDirectory)/\(sha256.prefix(2))/\(sha256)" }
    package func treePath(_ sha256: String) -> String { "\(treesDirectory)/\(sha256.prefix(2))/\(sha256)" }
    package func refPath(for url: AssetURL) -> String { "\(refsDirectory)/\(Self.hex(SHA256.hash(data: Data(url.string.utf8)))).json" }

    /// Opens the cache for a writer: creates it if absent or empty, refuses a folder
    /// it did not make, takes the writer lock and sweeps `tmp/`.
    /// With `wait`, a locked cache is retried until that many seconds have passed.
    public static func openForWriting(at root: String, wait: Double = 0) throws(StoreError) -> CacheStore {
        try checkOwnership(root, creating: true)
        // `lock` first: a second writer starting on the same new directory then sees
        // a folder holding `lock`, which it accepts, never a half-made foreign one.
        let lockPath = "\(root)/lock"
        let fd = open(lockPath, O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .io(FileSystem.Failure(operation: "open", path: lockPath, code: errno).description) }
        let deadline = ContinuousClock.now + .milliseconds(Int64(max(0, wait) * 1000))
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            // flock(2) has no timeout; a short poll keeps --wait bounded.
            if code == EWOULDBLOCK && ContinuousClock.now < deadline {
                usleep(50_000)
                continue
            }
            close(fd)
            if code == EWOULDBLOCK { throw .locked(path: root) }
            throw .io(FileSystem.Failure(operation: "flock", path: lockPath, code: code).description)
        }
        let store = CacheStore(root: root, lockDescriptor: fd)
        do {
            let formatPath = "\(root)/FORMAT"
            if !FileSystem.exists(formatPath) {
                try FileSystem.writeAtomically(Array("\(formatLine)\n".utf8), to: formatPath, tempDirectory: root)
            }
            for directory in [store.objectsDirectory, store.treesDirectory, store.refsDirectory, store.tmpDirectory] {
                try FileSystem.makeDirectory(directory)
            }
        } catch {
            throw .io(error.description)
        }
        try checkFormat(root)
        store.sweepTemporaryFiles()
        return store
    }

    /// Opens the cache for a reader: no lock, no writes. nil when there is no cache yet.
    public static func openForReading(at root: String) throws(StoreError) -> CacheStore? {
        guard FileSystem.exists(root) else { return nil }
        try checkOwnership(root, creating: false)
        guard FileSystem.exists("\(root)/FORMAT") else { return nil }
        try checkFormat(root)
        return CacheStore(root: root, lockDescriptor: nil)
    }

    private static func checkOwnership(_ root: String, creating: Bool) throws(StoreError) {
        if !FileSystem.exists(root) {
            guard creating else { return }
            do {
                try FileSystem.makeDirectories(root)
            } catch {
                throw .io("cannot create \(root): \(error)")
            }
        }
        guard FileSystem.isDirectory(root) else { throw .refused(path: root, reason: "it is not a directory") }
        let names = FileSystem.entries(root)
        if !names.isEmpty && !names.contains("FORMAT") && !names.contains("lock") {
            throw .refused(path: root, reason: "it is not empty and holds no FORMAT or lock file, so it is not a prefetch cache")
        }
    }

    private static func checkFormat(_ root: String) throws(StoreError) {
        guard let data = FileManager.default.contents(atPath: "\(root)/FORMAT") else { return }
        let line = String(decoding: data, as: UTF8.self).trimmed()
        guard line == formatLine else {
            throw .refused(path: root, reason: "its FORMAT says '\(line)', this tool reads '\(formatLine)'")
        }
    }

    /// A fresh path under `tmp/` for one download or tree.
    package func temporaryPath(_ label: String) -> String {
        "\(tmpDirectory)/\(label)-\(UInt64.random(in: 0...UInt64.max))"
    }

    /// Leftovers of runs that died; only a writer holding the lock may call this.
    func sweepTemporaryFiles(now: Double = Date().timeIntervalSince1970) {
        for name in FileSystem.entries(tmpDirectory) where name != "partial" {
            FileSystem.remove("\(tmpDirectory)/\(name)")
        }
        // Partial downloads are kept for resume, but not forever.
        let partials = "\(tmpDirectory)/partial"
        for name in FileSystem.entries(partials) {
            let path = "\(partials)/\(name)"
            if let modified = FileSystem.modificationTime(path), now - modified > 24 * 60 * 60 {
                FileSystem.remove(path)
            }
        }
    }

    /// Lower-case hex. By table rather than String(format:), which costs a
    /// Foundation formatter per byte: refPath(for:) runs several times per asset.
    static func hex<D: Sequence>(_ digest: D) -> String where D.Element == UInt8 {
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in digest {
            text.append(hexDigits[Int(byte >> 4)])
            text.append(hexDigits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
