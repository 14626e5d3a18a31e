import AssetCache
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Logging
import Synchronization

/// `prefetch publish`'s device: a new device's empty cache in a private
/// temporary directory, removed after, and the code of `prefetch run` to
/// judge a manifest's messages in it — the same limits, decoders, ZIP rules
/// and discard rule, so its verdicts are the ones a device's report gives.
final class DeviceJudge {
    let store: CacheStore
    private let directory: String
    private let logger: Logger
    private let base: PrefetchOptions
    /// Every body that arrived, by URL: the publisher pins what was judged.
    private let arrived = ArrivedBodies()

    private final class ArrivedBodies: Sendable {
        let bodies = Mutex<[AssetURL: String]>([:])
    }

    init(logger: Logger, cacert: String?, mirror: LocalMirror?) throws(CommandFailure) {
        let parent = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(parent)/prefetch-publish.XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw CommandFailure(
                message: "cannot make a temporary directory in \(parent): \(String(cString: strerror(errno))); set TMPDIR to a writable directory",
                status: ExitStatus.storage)
        }
        directory = String(cString: made)
        self.logger = logger
        do {
            store = try CacheStore.openForWriting(at: directory + "/cache", logger: logger)
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw CommandFailure(error)
        }
        var options = PrefetchOptions()
        // Nothing here is a verdict: no scrub of an empty cache, and the free
        // space of this machine's TMPDIR says nothing of a device's.
        options.scrub = ScrubPolicy(minimumBytes: 0, percent: 0)
        options.minimumFree = nil
        options.urgentHeadStart = .zero
        options.transfer.caCertFile = cacert
        options.localMirror = mirror
        options.logger = logger
        base = options
    }

    /// The temporary cache goes, whatever happened.
    func remove() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The messages of `manifest` judged as a device judges them, in its own cache.
    func judge(_ manifest: Manifest) async throws(CommandFailure) -> PrefetchReport {
        var options = base
        let arrived = self.arrived
        options.bodyArrived = { url, sha256 in arrived.bodies.withLock { $0[url] = sha256 } }
        do {
            return try await Prefetcher(store: store, options: options).run(manifest)
        } catch {
            throw CommandFailure(error)
        }
    }

    /// The SHA-256 of each body judged, by URL (hex).
    var bodies: [AssetURL: String] { arrived.bodies.withLock { $0 } }
}
