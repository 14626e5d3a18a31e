#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Crypto

/// `trust/`: what a device remembers of signed manifests between runs
/// (docs/cache-format.md). Read through directory descriptors like the rest of
/// the cache; written by writers only, each file replaced atomically and
/// flushed before the manifest it vouches for is acted on.
extension CacheStore {
    static let trustDirectory = "trust"
    static let trustedTimeFile = "time.json"

    func trustFileName(for audience: String) -> String {
        "\(Self.hex(SHA256.hash(data: Data(audience.utf8)))).json"
    }

    /// The record of `audience`, nil when none was accepted (or it cannot be read:
    /// a record is never guessed, so an unreadable one counts as none).
    func trustRecord(for audience: String) -> TrustRecord? {
        guard let bytes = try? directory.openDirectory(Self.trustDirectory).contents(of: trustFileName(for: audience), limit: 64 * 1024),
              let record = try? JSONDecoder().decode(TrustRecord.self, from: Data(bytes)),
              record.audience == audience
        else { return nil }
        return record
    }

    /// The latest time trusted so far; nil when none is stored.
    func storedTrustedTime() -> Double? {
        guard let bytes = try? directory.openDirectory(Self.trustDirectory).contents(of: Self.trustedTimeFile, limit: 4096),
              let record = try? JSONDecoder().decode(TrustedTimeRecord.self, from: Data(bytes)),
              record.trustedTime.isFinite
        else { return nil }
        return record.trustedTime
    }

    /// Both files, each durable (fsync, rename, directory fsync) before this returns.
    func writeTrust(_ record: TrustRecord?, trustedTime: Double) throws(StoreError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            let trust = try Self.ensureDirectory(Self.trustDirectory, in: directory, private: true, logger: logger)
            if let record {
                try FileSystem.writeAtomically(
                    Array(try encoder.encode(record)), to: trust, as: trustFileName(for: record.audience), temporary: tmp,
                    mode: Self.privateFileMode)
            }
            try FileSystem.writeAtomically(
                Array(try encoder.encode(TrustedTimeRecord(trustedTime: trustedTime))), to: trust, as: Self.trustedTimeFile,
                temporary: tmp, mode: Self.privateFileMode)
        } catch let error as FileSystem.Failure {
            throw StoreError(error, root: directory.path)
        } catch {
            throw .io("encoding trust/: \(error)")
        }
    }
}
