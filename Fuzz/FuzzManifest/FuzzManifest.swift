import AssetCache
import Foundation

/// libFuzzer entry (Fuzz/run.sh): any bytes must decode to a manifest or a
/// `ManifestError`; nothing else (a crash, a trap, a hang) is acceptable. Each
/// input is read both ways a manifest can be: by one reader, and on two threads
/// with the triggers array read in two halves from a guessed middle; the two
/// must agree (message ids and warnings, or the error to the letter).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzManifest(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    let one = outcome(data, onTwoThreads: false)
    let two = outcome(data, onTwoThreads: true)
    guard one == two else { fatalError("one reader: \(one); two threads: \(two)") }
    return 0
}

private func outcome(_ data: Data, onTwoThreads: Bool) -> String {
    do {
        let manifest = try Manifest.decode(data, onTwoThreads: onTwoThreads)
        // What a run would do next with it: every message's assets.
        let assets = manifest.actions.flatMap { $0.message.assets.map(\.url.string) }
        return "\(manifest.actions.map(\.id)) \(manifest.warnings) \(assets)"
    } catch {
        return error.description
    }
}
