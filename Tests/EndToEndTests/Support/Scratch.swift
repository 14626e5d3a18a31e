import AssetCache
import Foundation

/// A temporary folder for one test, removed when the test is done with it.
final class Scratch: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("prefetch-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
        let enumerator = FileManager.default.enumerator(atPath: url.path)
        while let name = enumerator?.nextObject() as? String {
            try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.appendingPathComponent(name).path)
        }
        try? FileManager.default.removeItem(at: url)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    func write(_ name: String, _ text: String) throws -> String {
        let target = path(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: target))
        return target
    }

    /// Every path below the folder, relative to it, sorted.
    func listing(_ sub: String = "") -> [String] {
        let base = sub.isEmpty ? url.path : path(sub)
        return ((FileManager.default.subpaths(atPath: base)) ?? []).sorted()
    }
}

/// A manifest built in code: `message(id, data)` entries with `inapp` wrapping.
func manifestJSON(_ triggers: [[String: Any]], integrity: [String: String] = [:], signed: SignedFields? = nil) throws -> String {
    var document: [String: Any] = ["triggers": triggers, "integrity": integrity]
    if let signed {
        document["version"] = signed.version
        document["audience"] = signed.audience
        document["expires"] = RFC3339Date.format(signed.expires)
        if let signedAt = signed.signedAt { document["signed_at"] = RFC3339Date.format(signedAt) }
    }
    return String(decoding: try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys]), as: UTF8.self)
}

/// What a signed manifest says of itself (docs/publishing.md): by default
/// version 1 for the channel "test-devices", expiring in a day.
struct SignedFields {
    var version = 1
    var audience = SignedFields.channel
    var expires = Date().timeIntervalSince1970 + 86_400
    var signedAt: Double?

    static let channel = "test-devices"
}

func inapp(_ id: String, _ data: [String: Any], prefetch: Bool = true) -> [String: Any] {
    ["id": id, "type": "inapp", "prefetch": prefetch, "trigger_condition": [["type": "open"]], "data": data]
}
