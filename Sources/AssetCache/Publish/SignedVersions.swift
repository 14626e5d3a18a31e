#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// What `prefetch publish` signed with one key: the last version per
/// audience, in a file beside the key (`publisher.sec` → `publisher.versions`,
/// docs/publishing.md#versions), so that the next publish signs a higher one
/// even within the same second. Publishes with one key take turns: the key
/// file is locked (`flock`) from the choice of a version until it is recorded.
///
/// ```json
/// {"format": 1, "audiences": {"lobby-screens": {"version": 1795844888, "sha256": "…", "signed_at": "2026-11-28T14:00:00Z"}}}
/// ```
package final class SignedVersions {
    package struct Entry: Codable, Equatable {
        package var version: Int64
        /// Of the manifest signed, so that the record says which bytes.
        package var sha256: String
        package var signedAt: String

        package init(version: Int64, sha256: String, signedAt: String) {
            self.version = version
            self.sha256 = sha256
            self.signedAt = signedAt
        }

        enum CodingKeys: String, CodingKey {
            case version, sha256
            case signedAt = "signed_at"
        }
    }

    private struct File: Codable {
        var format: Int
        var audiences: [String: Entry]
    }

    package let path: String
    private let lock: Int32
    private var file: File

    /// `KEY.sec` → `KEY.versions`; another name gets `.versions` added.
    package static func path(forKey key: String) -> String {
        (key.hasSuffix(".sec") ? String(key.dropLast(4)) : key) + ".versions"
    }

    /// Takes the key's lock (waiting for another publish with it), then
    /// reads the file; none yet is an empty record.
    package init(key: String) throws(SignedVersionsError) {
        path = Self.path(forKey: key)
        lock = LibC.open(key, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard lock >= 0 else { throw .io(path: key, String(cString: strerror(errno))) }
        while flock(lock, LOCK_EX) != 0 {
            guard errno == EINTR else {
                let reason = String(cString: strerror(errno))
                close(lock)
                throw .io(path: key, "cannot lock it: \(reason)")
            }
        }
        do {
            file = try Self.read(path)
        } catch {
            close(lock)
            throw error
        }
    }

    deinit {
        close(lock)
    }

    package func last(for audience: String) -> Entry? {
        file.audiences[audience]
    }

    /// Recorded durably (temp file, flush, rename, flush of the directory)
    /// before the manifest is written, so that a crash between the two can
    /// only skip a version, never sign one twice.
    package func record(_ entry: Entry, for audience: String) throws(SignedVersionsError) {
        var next = file
        next.audiences[audience] = entry
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(next) else { throw .io(path: path, "cannot encode it") }
        do throws(FileSystem.Failure) {
            try ReplacedFile(path: path).replace(with: data + Data("\n".utf8), mode: 0o600)
        } catch {
            throw .io(path: path, "\(error)")
        }
        file = next
    }

    private static func read(_ path: String) throws(SignedVersionsError) -> File {
        let data: Data?
        do throws(FileSystem.Failure) {
            data = try ReplacedFile(path: path).contents(limit: 1 << 20)
        } catch {
            throw .corrupt(path: path, "\(error)")
        }
        guard let data else { return File(format: 1, audiences: [:]) }
        guard let file = try? JSONDecoder().decode(File.self, from: data), file.format == 1 else {
            throw .corrupt(path: path, "it is not a versions file of format 1")
        }
        return file
    }
}

package enum SignedVersionsError: Error, CustomStringConvertible {
    case io(path: String, String)
    case corrupt(path: String, String)

    package var description: String {
        switch self {
        case .io(let path, let reason): "\(path): \(reason)"
        case .corrupt(let path, let reason):
            "\(path): \(reason); it records the versions signed with this key: restore it, or remove it and give --previous the manifest now published"
        }
    }
}
