import CFileSync
#if canImport(Glibc)
import Glibc
#endif

/// How a batch of commits is made durable: one flush for the whole batch where the
/// filesystem can do that, a flush per file and directory where it cannot.
///
/// syncfs(2) writes and flushes every dirty file and directory entry of one
/// filesystem, so a batch costs the same one call however many files it holds;
/// ext4, XFS, btrfs and f2fs each promise that. git's batch mode (write-out per
/// file, then the fsync of one dummy file) was the other candidate: it relies on
/// the filesystem committing every file's metadata with the dummy's, true of a
/// single journal (ext4, XFS) but not of f2fs or btrfs, which log per inode — and
/// f2fs is what the eMMC and SD cards this tool runs on often carry.
///
/// FUSE passes syncfs on to the file system only for virtiofs; on any other FUSE
/// mount it returns 0 having flushed nothing. There every file and directory is
/// fsynced on its own, in the same steps.
final class BatchFlush: Sendable {
    let method: FlushMethod
    /// Opened for the run: syncfs reports the writeback errors of the
    /// filesystem since this descriptor was opened, so none falls between runs.
    private let root: Directory
    private let rootPath: String
    private let observer: DurabilityObserver?
    /// The data flush left out on purpose (``FlushFaultInjection``): the power-loss test
    /// must then fail.
    private let skipsData: Bool

    private static let fuseMagic = 0x6573_5546

    init(store: CacheStore, method: FlushMethod? = nil, observer: DurabilityObserver? = nil,
         skipsData: Bool = FlushFaultInjection.skipsAssetDataFlush) throws(FileSystem.Failure) {
        root = try store.directory.openDirectory(".")
        rootPath = store.root
        self.method = method ?? (assetcache_filesystem_type(root.descriptor) == Self.fuseMagic ? .perFile : .filesystem)
        self.observer = observer
        self.skipsData = skipsData
    }

    /// The contents of `files`, of every file and directory in `trees`, and the
    /// names already in `directories`.
    func flushData(files: [FileLocation], trees: [FileLocation], directories: [Directory]) throws(FileSystem.Failure) {
        if skipsData { return }
        switch method {
        case .filesystem:
            try syncFilesystem()
        case .perFile:
            for file in files {
                let fd = try file.directory.openFile(file.name, O_RDONLY)
                defer { close(fd) }
                guard fsync(fd) == 0 else { throw FileSystem.Failure(operation: "fsync", path: file.path, code: errno) }
                observer?(.syncedFile(file.path))
            }
            for tree in trees {
                try tree.directory.openDirectory(tree.name).syncTree { [observer] path, isDirectory in
                    observer?(isDirectory ? .syncedDirectory(path) : .syncedFile(path))
                }
            }
            try sync(directories)
        }
    }

    /// The names renamed or created in `directories`.
    func flushNames(in directories: [Directory]) throws(FileSystem.Failure) {
        switch method {
        case .filesystem: try syncFilesystem()
        case .perFile: try sync(directories)
        }
    }

    /// The names in one directory, whatever the method.
    func flushDirectory(_ directory: Directory) throws(FileSystem.Failure) {
        try sync([directory])
    }

    func renamed(_ from: String, to: String) {
        observer?(.renamed(from: from, to: to))
    }

    private func syncFilesystem() throws(FileSystem.Failure) {
        guard assetcache_syncfs(root.descriptor) == 0 else { throw FileSystem.Failure(operation: "syncfs", path: rootPath, code: errno) }
        observer?(.syncedFilesystem)
    }

    private func sync(_ directories: [Directory]) throws(FileSystem.Failure) {
        for directory in directories {
            try directory.sync()
            observer?(.syncedDirectory(directory.path))
        }
    }
}
