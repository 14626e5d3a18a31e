import AssetCache
import Foundation

/// libFuzzer entry (Fuzz/run.sh): any bytes must decode to a manifest or a
/// `ManifestError`; nothing else (a crash, a trap, a hang) is acceptable.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzManifest(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    do {
        let manifest = try Manifest.decode(data)
        // What a run would do next with it: every message's assets.
        for action in manifest.actions {
            for asset in action.message.assets { _ = asset.url.string }
        }
    } catch {
        _ = error.description
    }
    return 0
}
