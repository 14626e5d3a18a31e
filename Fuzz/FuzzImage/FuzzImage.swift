import AssetCache
import Foundation

/// libFuzzer entry (Fuzz/run.sh): any bytes, saved as a file, must validate as an
/// image within limits or fail with an `AssetFailure`; libpng's and libjpeg's
/// longjmps, giflib, libwebp, the checks around them and the format sniffing
/// must never crash, leak or hang. Small limits keep each run fast.
///
/// Fuzz/run.sh's FuzzPNG, FuzzJPEG, FuzzGIF and FuzzWebP are this target with
/// $ASSETCACHE_FUZZ_FORMAT set: an input that does not start with that format's
/// signature gets it put in front, so every run reaches that one decoder.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImage(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var data = start.map { Data(bytes: $0, count: count) } ?? Data()
    if let forced = forcedSignature {
        let signature = forced(data.count)
        if !data.starts(with: signature.prefix(4)) { data = signature + data }
    }
    try! data.write(to: URL(fileURLWithPath: path))
    var limits = ImageLimits()
    limits.maxSide = 2048
    limits.maxPixels = 1 << 20
    limits.maxChunkBytes = 1 << 20
    limits.maxFrames = 64
    limits.maxAnimationPixels = 1 << 22
    limits.maxDecoderMemory = 4 << 20
    switch ImageValidator.validate(path: path, limits: limits) {
    case .success(let info):
        precondition(info.width > 0 && info.height > 0 && info.width <= limits.maxSide && info.height <= limits.maxSide)
        precondition(Int64(info.width) * Int64(info.height) <= limits.maxPixels)
        precondition(info.frames >= 1 && info.frames <= limits.maxFrames)
    case .failure(let failure):
        _ = failure.description
    }
    _ = ImageValidator.sniff(path: path)
    return 0
}

/// The bytes put in front of an input of `count` bytes.
private let forcedSignature: (@Sendable (Int) -> Data)? = {
    switch ProcessInfo.processInfo.environment["ASSETCACHE_FUZZ_FORMAT"] {
    case "png": { _ in Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) }
    case "jpeg": { _ in Data([0xFF, 0xD8, 0xFF]) }
    case "gif": { _ in Data("GIF89a".utf8) }
    // The RIFF size is right, so the chunks are what gets fuzzed.
    case "webp": { count in Data("RIFF".utf8) + withUnsafeBytes(of: UInt32(count + 4).littleEndian) { Data($0) } + Data("WEBP".utf8) }
    case nil, "": nil
    case let other?: fatalError("ASSETCACHE_FUZZ_FORMAT=\(other): expected png, jpeg, gif or webp")
    }
}()

/// Below $ASSETCACHE_FUZZ_WORKDIR (which Fuzz/run.sh makes in /dev/shm and
/// removes), else the temporary directory.
private let path: String = {
    let base = ProcessInfo.processInfo.environment["ASSETCACHE_FUZZ_WORKDIR"] ?? NSTemporaryDirectory()
    return base + "/image-\(getpid())"
}()
