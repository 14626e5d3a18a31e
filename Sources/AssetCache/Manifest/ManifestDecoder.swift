#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
import Synchronization

extension Manifest {
    /// Manifests are small documents; anything larger is refused unread.
    public static let maxSize = 8 * 1024 * 1024

    /// Decodes and checks a manifest. Unknown keys are ignored; wrong types, missing
    /// or duplicate ids and non-http(s) URLs throw a ``ManifestError`` naming the path.
    ///
    /// `eachNewURL` is called once for each asset URL as it is first met, on the
    /// thread that builds the model: it may start work there (a cache look-up)
    /// that then runs while the text is still being read. It may be called for
    /// URLs of messages that end up skipped, and not for every URL if the
    /// manifest is refused.
    public static func decode(_ data: Data, eachNewURL: (@Sendable (AssetURL) -> Void)? = nil) throws(ManifestError) -> Manifest {
        try decode(
            data, onTwoThreads: data.count >= 128 * 1024 && ProcessInfo.processInfo.activeProcessorCount > 1,
            eachNewURL: eachNewURL)
    }

    /// Below 128 KiB, or on one core, a second thread would cost more than it saves.
    /// Package-wide so that the fuzz target holds both paths to the same outcome.
    package static func decode(
        _ data: Data, onTwoThreads: Bool, eachNewURL: (@Sendable (AssetURL) -> Void)? = nil
    ) throws(ManifestError) -> Manifest {
        guard data.count <= maxSize else {
            throw ManifestError(path: "", "the manifest is \(data.count) bytes; the limit is \(maxSize)")
        }
        let (read, builder) = onTwoThreads
            ? readAndBuildOnTwoThreads(data, eachNewURL: eachNewURL) : readAndBuild(data, eachNewURL: eachNewURL)
        let fields: RawManifestFields
        do {
            fields = try read.get()
        } catch {
            throw ManifestError(path: error.path ?? "", error.message(line: true))
        }
        var finished = builder
        return try finished.finish(fields)
    }

    private static func readAndBuild(
        _ data: Data, eachNewURL: (@Sendable (AssetURL) -> Void)?
    ) -> (Result<RawManifestFields, JSONReadError>, ManifestBuilder) {
        var builder = ManifestBuilder(bytes: data.count, eachNewURL: eachNewURL)
        let read = data.withUnsafeBytes { bytes in
            Result { () throws(JSONReadError) in
                try ManifestReader.read(bytes) { trigger, index in builder.add(trigger, index: index) }
            }
        }
        return (read, builder)
    }

    /// The same, with the model built on a thread of its own from batches of
    /// triggers (``TriggerHandoff``), in the order they were read.
    private static func readAndBuildOnTwoThreads(
        _ data: Data, eachNewURL: (@Sendable (AssetURL) -> Void)?
    ) -> (Result<RawManifestFields, JSONReadError>, ManifestBuilder) {
        let handoff = TriggerHandoff()
        let built = Mutex<ManifestBuilder?>(nil)
        let done = DispatchSemaphore(value: 0)
        let size = data.count
        DetachedThread.start(name: "manifest model") {
            var builder = ManifestBuilder(bytes: size, eachNewURL: eachNewURL)
            while var batch = handoff.next() {
                // Taken out: iterating the batch copied each trigger.
                for slot in batch.indices {
                    if let trigger = batch[slot].trigger.take() { builder.add(trigger, index: batch[slot].index) }
                }
            }
            built.withLock { $0 = builder }
            done.signal()
        }
        let batchSize = 256
        var batch = TriggerHandoff.Batch()
        batch.reserveCapacity(batchSize)
        let read = data.withUnsafeBytes { bytes in
            Result { () throws(JSONReadError) in
                try ManifestReader.read(bytes, inTwoHalves: true) { trigger, index in
                    batch.append((trigger, index))
                    if batch.count == batchSize {
                        handoff.send(batch)
                        batch.removeAll(keepingCapacity: true)
                    }
                }
            }
        }
        if !batch.isEmpty { handoff.send(batch) }
        handoff.close()
        done.wait()
        return (read, built.withLock { $0.take()! })
    }
}
