import AssetCache
import Foundation

/// libFuzzer entry (Fuzz/run.sh): any bytes must decode to a manifest or a
/// `ManifestError`; nothing else (a crash, a trap, a hang) is acceptable. The
/// manifest is then used as a run would use it next — every message's assets —
/// so that a model that decodes but cannot be walked is caught too.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzManifest(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    if let manifest = try? Manifest.decode(data) {
        _ = manifest.actions.flatMap { $0.message.assets.map(\.url.string) }
    }
    return 0
}
