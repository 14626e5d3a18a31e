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
    /// One pass on one thread: reading on two (the builder on its own, the
    /// triggers array in two halves) bought 1% of a 10,000-message plan for 7%
    /// more instructions, and went (BENCHMARKS.md, issue 27).
    public static func decode(_ data: Data) throws(ManifestError) -> Manifest {
        guard data.count <= maxSize else {
            throw ManifestError(path: "", "the manifest is \(data.count) bytes; the limit is \(maxSize)")
        }
        let (read, builder) = readAndBuild(data)
        let fields: RawManifestFields
        do {
            fields = try read.get()
        } catch {
            throw ManifestError(path: error.path ?? "", error.message(line: true))
        }
        var finished = builder
        return try finished.finish(fields)
    }

    private static func readAndBuild(_ data: Data) -> (Result<RawManifestFields, JSONReadError>, ManifestBuilder) {
        var builder = ManifestBuilder(bytes: data.count)
        let read = data.withUnsafeBytes { bytes in
            Result { () throws(JSONReadError) in
                try ManifestReader.read(bytes) { trigger, index in builder.add(trigger, index: index) }
            }
        }
        return (read, builder)
    }
}
