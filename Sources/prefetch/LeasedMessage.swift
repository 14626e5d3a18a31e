import AssetCache
#if canImport(Glibc)
import Glibc
#endif

/// The leases of one message of `readiness.json`, taken. The index is read by
/// the same strict reader as `prefetch ready`, keeping only that message. It
/// lies in the cache, so no path in it is opened as given: the asset's
/// `object` names the lease file, which is opened below the cache's own
/// `leases/` without following a link.
enum LeasedMessage {
    /// The descriptors holding the message's leases (close-on-exec).
    static func take(_ id: String, in store: CacheStore) throws(CommandFailure) -> [Int32] {
        let indexPath = store.directory.path(of: ReadinessIndex.fileName)
        let index: ReadinessIndex?
        do {
            index = try store.readReadinessIndex(only: [id], triggers: false)
        } catch {
            throw CommandFailure(message: "\(indexPath) is not a readiness index: \(error)", status: ExitStatus.usage)
        }
        guard let index else {
            throw CommandFailure(message: "no readiness index at \(indexPath): a run writes it", status: ExitStatus.usage)
        }
        guard let message = index.messages.first(where: { $0.id == id }) else {
            throw CommandFailure(message: "no message '\(id)' in \(indexPath)", status: ExitStatus.usage)
        }
        var held: [Int32] = []
        for asset in message.assets where asset.lease != nil || asset.object != nil {
            let sha256 = asset.object ?? ""
            guard sha256.utf8.count == 64, sha256.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
                held.forEach { close($0) }
                throw CommandFailure(message: "\(indexPath) names '\(sha256)' as an object, which is not a SHA-256", status: ExitStatus.usage)
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
