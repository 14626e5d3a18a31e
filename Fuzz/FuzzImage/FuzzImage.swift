import AssetCache
import Foundation

/// libFuzzer entry (fuzz/run.sh): any bytes, saved as a file, must validate as an
/// image within limits or fail with an `AssetFailure`; libpng's longjmp, the
/// JPEG/GIF/WebP walkers and the format sniffing must never crash or hang. Small
/// limits keep each run fast.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImage(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    try! data.write(to: URL(fileURLWithPath: path))
    var limits = ImageLimits()
    limits.maxSide = 2048
    limits.maxPixels = 1 << 20
    limits.maxChunkBytes = 1 << 20
    switch ImageValidator.validate(path: path, limits: limits) {
    case .success(let info):
        precondition(info.width > 0 && info.height > 0 && info.width <= limits.maxSide && info.height <= limits.maxSide)
        precondition(Int64(info.width) * Int64(info.height) <= limits.maxPixels)
    case .failure(let failure):
        _ = failure.description
    }
    _ = ImageValidator.sniff(path: path)
    return 0
}

/// Below $ASSETCACHE_FUZZ_WORKDIR (which fuzz/run.sh makes in /dev/shm and
/// removes), else the temporary directory.
private let path: String = {
    let base = ProcessInfo.processInfo.environment["ASSETCACHE_FUZZ_WORKDIR"] ?? NSTemporaryDirectory()
    return base + "/image-\(getpid())"
}()
