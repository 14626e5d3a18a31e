import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Logging

/// The content-addressed cache on disk (docs/cache-format.md). The layout is the documentation:
///
///     FORMAT                      "asset-cache 1"
///     lock                        flock(2) target for writers, 0600: no reader may open it (WriterLock.swift)
///     objects/ab/<sha256>         immutable blobs, mode 0444
///     trees/ab/<sha256>/…         unpacked ZIPs, keyed by the ZIP's sha256
///     refs/<sha256(url)>.json     url → object, validators (0640 in a 0750 folder: URLs may hold credentials)
///     tmp/                        in-flight downloads and half-unpacked trees (0750, as refs/)
///     leases/ab/<sha256>          empty, 0444: a display app's shared flock keeps the object (Leases.swift)
///
/// Everything is written in `tmp/`, synced, then renamed into place, and an object
/// or tree is durable before the ref that names it, so readers never see a partial
/// file and a crash leaves either nothing or a complete entry.
///
/// The root and its four directories are opened once, checked (`DirectoryTrust`)
/// and then used only through their descriptors (`Directory`): nothing below the
/// root is named by a path again, and no link inside the cache is followed.
public final class CacheStore: Sendable {
    package static let formatLine = "asset-cache 1"
    /// Refs and `state.json` name URLs, which may carry credentials: not for everyone.
    static let privateFileMode: mode_t = 0o640

    public let root: String
    package let directory: Directory
    package let objects: Directory
    package let trees: Directory
    package let refs: Directory
    package let tmp: Directory
    /// nil for a reader of a cache no writer of this release has opened yet.
    package let leases: Directory?
    private let lockDescriptor: Int32?
    /// 304s that renewed a copy's freshness, applied to every ref read.
    let revalidations = Revalidations()
    /// Told of what the store repairs on its own, such as a link removed where
    /// the cache keeps a directory.
    package let logger: Logger
    /// Libraries using swift-log are silent unless given a logger.
    public static let silentLogger = Logger(label: "AssetCache", factory: { _ in SwiftLogNoOpLogHandler() })

    init(directory: Directory, objects: Directory, trees: Directory, refs: Directory, tmp: Directory, leases: Directory?, lockDescriptor: Int32?, logger: Logger) {
        root = directory.path
        self.directory = directory
        self.objects = objects
        self.trees = trees
        self.refs = refs
        self.tmp = tmp
        self.leases = leases
        self.lockDescriptor = lockDescriptor
        self.logger = logger
    }

    deinit {
        if let lockDescriptor { close(lockDescriptor) }
    }

    package var objectsDirectory: String { objects.path }
    package var treesDirectory: String { trees.path }
    package var refsDirectory: String { refs.path }
    package var tmpDirectory: String { tmp.path }

    package func objectPath(_ sha256: String) -> String { "\(objectsDirectory)/\(sha256.prefix(2))/\(sha256)" }
    package func treePath(_ sha256: String) -> String { "\(treesDirectory)/\(sha256.prefix(2))/\(sha256)" }
    /// `<sha256(url)>.json`, the ref's name in `refs/`.
    package func refName(for url: AssetURL) -> String { "\(Self.hex(SHA256.hash(data: Data(url.string.utf8)))).json" }
    package func refPath(for url: AssetURL) -> String { refs.path(of: refName(for: url)) }

    /// A fresh name under `tmp/` for one download or tree.
    package func temporaryFile(_ label: String) -> FileLocation {
        FileLocation(tmp, "\(label)-\(UInt64.random(in: 0...UInt64.max))")
    }

    /// The shard (`objects/ab`, `trees/ab`) holding `sha256`, if it is there, is a
    /// directory (a link is not) and passes ``DirectoryTrust``.
    func shard(of sha256: String, in parent: Directory) -> Directory? {
        let name = String(sha256.prefix(2))
        guard let shard = try? parent.openDirectory(name) else {
            noteLink(name, in: parent, where: "a directory")
            return nil
        }
        if let problem = DirectoryTrust.problem(with: shard, writer: lockDescriptor != nil) {
            logger.warning("ignored \(shard.path): \(problem)")
            return nil
        }
        return shard
    }

    /// Tells of a link met where the cache keeps `what`: it is never followed,
    /// and a writer replaces it as itself.
    func noteLink(_ name: String, in directory: Directory, where what: String) {
        if let info = directory.status(name), info.st_mode & S_IFMT == S_IFLNK {
            logger.warning("ignored \(directory.path(of: name)): a symbolic link where the cache keeps \(what); it was not followed")
        }
    }

    /// The same, made when absent; for writers.
    func makeShard(of sha256: String, in parent: Directory) throws(FileSystem.Failure) -> Directory {
        try Self.ensureDirectory(String(sha256.prefix(2)), in: parent, logger: logger)
    }

    /// A directory the cache keeps, made if absent (0755, or 0750 when `private`:
    /// `refs/` and `tmp/` hold URLs, which may carry credentials). A link or a
    /// file in its place is removed as itself (never followed) and logged; a
    /// directory others could write into fails with the fix; a private one that
    /// others could read, made before it was private, is closed to them.
    static func ensureDirectory(
        _ name: String, in parent: Directory, private: Bool = false, logger: Logger
    ) throws(FileSystem.Failure) -> Directory {
        let mode: mode_t = `private` ? 0o750 : 0o755
        let directory: Directory
        do {
            directory = try parent.makeDirectory(name, mode: mode)
        } catch where error.code == ELOOP || error.code == ENOTDIR {
            logger.warning("removed \(parent.path(of: name)): a \(parent.kind(of: name)) where the cache keeps a directory; it was not followed")
            parent.unlink(name)
            directory = try parent.makeDirectory(name, mode: mode)
        }
        if let problem = DirectoryTrust.problem(with: directory, writer: true) {
            throw FileSystem.Failure(operation: "use", path: directory.path, code: EPERM, reason: problem)
        }
        if `private`, let info = directory.status(), info.st_mode & 0o007 != 0 {
            try directory.setMode(info.st_mode & 0o7770)
        }
        return directory
    }

    /// Leftovers of runs that died, at any depth; only a writer holding the lock
    /// may call this. Links among them are removed as themselves.
    func sweepTemporaryFiles(now: Double = Date().timeIntervalSince1970) {
        for name in tmp.entries() where name != "partial" {
            removeLeftover(name, in: tmp)
        }
        guard let info = tmp.status("partial") else { return }
        guard info.st_mode & S_IFMT == S_IFDIR, let partials = try? tmp.openDirectory("partial") else {
            removeLeftover("partial", in: tmp)
            return
        }
        // Partial downloads are kept for resume, but not forever.
        for name in partials.entries() {
            if let info = partials.status(name), now - LibC.modificationTime(info) > 24 * 60 * 60 {
                removeLeftover(name, in: partials)
            }
        }
    }

    private func removeLeftover(_ name: String, in directory: Directory) {
        if let info = directory.status(name), info.st_mode & S_IFMT == S_IFLNK {
            logger.warning("removed the symbolic link \(directory.path(of: name)); the cache never follows one")
        }
        do {
            try directory.remove(name)
        } catch {
            logger.warning("could not remove \(directory.path(of: name)): \(error)")
        }
    }

    /// Lower-case hex. By table rather than String(format:), which costs a
    /// Foundation formatter per byte: refName(for:) runs several times per asset.
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
