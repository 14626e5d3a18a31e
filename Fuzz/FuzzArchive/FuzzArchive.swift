import AssetCache
import Foundation

/// libFuzzer entry (Fuzz/run.sh): any bytes, saved as a ZIP, must unpack or fail
/// with an `AssetFailure`, never write outside the target directory, and never
/// crash. Small limits keep each run fast; the rules do not depend on them.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzArchive(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let workspace = FuzzWorkspace.shared
    workspace.write(start, count)
    var limits = ArchiveLimits()
    limits.maxEntries = 200
    limits.maxUnpackedSize = 4 * 1024 * 1024
    let target = workspace.directory + "/out"
    switch ArchiveUnpacker.unpack(zipPath: workspace.input, into: target, limits: limits) {
    case .success(let info):
        precondition(info.unpackedBytes <= limits.maxUnpackedSize, "unpacked past the limit")
    case .failure(let failure):
        _ = failure.description
    }
    try? FileManager.default.removeItem(atPath: target)
    // Only the input and (until just now) the target may exist in the workspace.
    let left = (try? FileManager.default.contentsOfDirectory(atPath: workspace.directory)) ?? []
    precondition(left == ["input"], "the unpacker left \(left) beside its target")
    return 0
}

/// One private folder per fuzzing process, below $ASSETCACHE_FUZZ_WORKDIR (which
/// Fuzz/run.sh makes in /dev/shm and removes), else the temporary directory.
final class FuzzWorkspace: Sendable {
    static let shared = FuzzWorkspace()
    let directory: String
    let input: String

    private init() {
        let base = ProcessInfo.processInfo.environment["ASSETCACHE_FUZZ_WORKDIR"] ?? NSTemporaryDirectory()
        directory = base + "/archive-\(getpid())"
        try? FileManager.default.removeItem(atPath: directory)
        try! FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        input = directory + "/input"
    }

    func write(_ start: UnsafePointer<UInt8>?, _ count: Int) {
        let data = start.map { Data(bytes: $0, count: count) } ?? Data()
        try! data.write(to: URL(fileURLWithPath: input))
    }
}
