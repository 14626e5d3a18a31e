import AssetCache
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The leases of one message of `readiness.json`, taken. Only `messages[].id`
/// and `messages[].assets[].lease` are read; other keys are the index's
/// business. The index lies in the cache, so a lease path is not opened as
/// given: its last component names the object, whose lease file is opened
/// below the cache's own `leases/` without following a link.
enum LeasedMessage {
    static let indexName = "readiness.json"

    private struct Index: Decodable {
        struct Message: Decodable {
            var id: String
            var assets: [Asset]?
        }
        struct Asset: Decodable {
            var lease: String?
        }
        var messages: [Message]
    }

    /// The descriptors holding the message's leases (close-on-exec).
    static func take(_ id: String, in store: CacheStore) throws(CommandFailure) -> [Int32] {
        let indexPath = store.directory.path(of: indexName)
        guard let bytes = store.directory.contents(of: indexName, limit: 256 << 20) else {
            throw CommandFailure(message: "no readiness index at \(indexPath): a run writes it", status: ExitStatus.usage)
        }
        let index: Index
        do {
            index = try JSONDecoder().decode(Index.self, from: Data(bytes))
        } catch {
            throw CommandFailure(message: "\(indexPath) is not a readiness index: \(error)", status: ExitStatus.usage)
        }
        guard let message = index.messages.first(where: { $0.id == id }) else {
            throw CommandFailure(message: "no message '\(id)' in \(indexPath)", status: ExitStatus.usage)
        }
        var held: [Int32] = []
        for lease in (message.assets ?? []).compactMap(\.lease) {
            let sha256 = String(lease.split(separator: "/").last ?? "")
            guard sha256.utf8.count == 64, sha256.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
                held.forEach { close($0) }
                throw CommandFailure(message: "\(indexPath) names '\(lease)' as a lease, which is not a lease file of the cache", status: ExitStatus.usage)
            }
            guard let fd = store.takeLease(sha256: sha256) else {
                held.forEach { close($0) }
                throw CommandFailure(
                    message: "an asset of message '\(id)' is no longer in the cache (\(store.leasePath(sha256))); read \(indexPath) again, or run again",
                    status: ExitStatus.locked)
            }
            held.append(fd)
        }
        return held
    }
}
