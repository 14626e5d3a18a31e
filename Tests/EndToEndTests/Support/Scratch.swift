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
func manifestJSON(_ triggers: [[String: Any]], integrity: [String: String] = [:]) throws -> String {
    let document: [String: Any] = ["triggers": triggers, "integrity": integrity]
    return String(decoding: try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys]), as: UTF8.self)
}

func inapp(_ id: String, _ data: [String: Any], prefetch: Bool = true) -> [String: Any] {
    ["id": id, "type": "inapp", "prefetch": prefetch, "trigger_condition": [["type": "open"]], "data": data]
}
