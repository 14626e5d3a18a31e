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
    /// The descriptors holding the message's leases (close-on-exec). `wait`
    /// bounds the time spent waiting for lease files that another process
    /// holds exclusively, for all of them together.
    static func take(_ id: String, in store: CacheStore, wait: Double) throws(CommandFailure) -> [Int32] {
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
        let deadline = ContinuousClock.now + CheckedNumber.duration(seconds: wait)
        var held: [Int32] = []
        for asset in message.assets where asset.lease != nil || asset.object != nil {
            let sha256 = asset.object ?? ""
            guard sha256.utf8.count == 64, sha256.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
                held.forEach { close($0) }
                throw CommandFailure(message: "\(indexPath) names '\(sha256)' as an object, which is not a SHA-256", status: ExitStatus.usage)
            }
            let left = max(0, seconds(deadline - ContinuousClock.now))
            let fd: Int32
            switch store.takeLease(sha256: sha256, wait: left) {
            case .held(let descriptor):
                fd = descriptor
            case .gone:
                held.forEach { close($0) }
                throw CommandFailure(
                    message: "an asset of message '\(id)' is no longer in the cache (\(store.leasePath(sha256))); read \(indexPath) again, or run again",
                    status: ExitStatus.locked)
            case .heldExclusively:
                held.forEach { close($0) }
                throw CommandFailure(
                    message: "cannot lease message '\(id)': another process holds \(store.leasePath(sha256)) exclusively; "
                        + "waited \(Seconds(wait)) s for it (--wait), COMMAND was not run",
                    status: ExitStatus.locked,
                    hint: "a writer holds a lease file only while it removes that asset: try again, or pass --wait SECONDS; "
                        + "a hold that lasts is another program's (lslocks shows it)")
            }
            held.append(fd)
        }
        return held
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
