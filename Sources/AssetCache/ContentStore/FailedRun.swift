#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `<cache>/last-failure.json` (docs/cache-format.md): the last run that ended
/// in an error once it held the cache's lock — a manifest that could not be
/// fetched or was refused, a disk that failed. Such a run leaves no summary in
/// `state.json`, and without this `status` would show the run before it as if
/// nothing had happened since. A file of its own, not a key of `state.json`,
/// because a refused manifest leaves the cache as it was: this record of the
/// refusal is the one file it writes. A run that finishes removes it.
public struct FailedRun: Sendable, Codable, Equatable {
    public static let fileName = "last-failure.json"
    /// The error is kept to this many bytes of UTF-8: it may quote a server.
    public static let messageLimit = 1024

    /// Seconds since 1970.
    public var failedAt: Double
    public var exitStatus: Int32
    /// The error as the run printed it, unescaped: whoever prints it escapes it.
    public var message: String

    public init(failedAt: Double, exitStatus: Int32, message: String) {
        self.failedAt = failedAt
        self.exitStatus = exitStatus
        var bytes = 0
        let kept = message.unicodeScalars.prefix { scalar in
            bytes += scalar.utf8.count
            return bytes <= Self.messageLimit
        }
        self.message = String(String.UnicodeScalarView(kept))
    }

    enum CodingKeys: String, CodingKey {
        case message
        case failedAt = "failed_at"
        case exitStatus = "exit_status"
    }
}

extension CacheStore {
    /// Only a writer holding the lock records one; best effort for its caller,
    /// whose error is printed whether or not this could be written.
    package func recordFailedRun(_ failure: FailedRun) throws(StoreError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        do {
            try FileSystem.writeAtomically(
                Array(try encoder.encode(failure)), to: directory, as: FailedRun.fileName, temporary: tmp, mode: Self.privateFileMode)
        } catch let error as FileSystem.Failure {
            throw StoreError(error, root: directory.path)
        } catch {
            throw .io("encoding \(FailedRun.fileName): \(error)")
        }
    }

    /// A finished run: the failure before it is history.
    package func clearFailedRun() {
        _ = directory.unlink(FailedRun.fileName)
    }

    /// The last failed run since the last that finished; nil when there is
    /// none or the file is not one this release wrote (it is in the cache
    /// directory, so it is not taken on trust).
    public func lastFailedRun() -> FailedRun? {
        guard let bytes = directory.contents(of: FailedRun.fileName, limit: 16 << 10),
              let failure = try? JSONDecoder().decode(FailedRun.self, from: Data(bytes)),
              failure.failedAt.isFinite, (1...255).contains(failure.exitStatus) else { return nil }
        return failure
    }
}
