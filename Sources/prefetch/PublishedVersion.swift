import AssetCache
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging

/// The version of the manifest now published, which the next must exceed
/// (`publish --previous URL|FILE`, and the output file when it exists).
enum PublishedVersion {
    /// nil when there is no file, or the manifest there has no version.
    static func read(file path: String, as name: String) throws(CommandFailure) -> Int64? {
        let data: Data?
        do throws(FileSystem.Failure) {
            data = try ReplacedFile(path: path).contents(limit: Manifest.maxSize)
        } catch {
            throw CommandFailure(message: "\(name) '\(path)' cannot be read: \(error)", status: ExitStatus.usage)
        }
        guard let data else { return nil }
        return try version(in: data, from: path, as: name)
    }

    /// nil when the server has none there yet (404, 410): a first publish.
    static func fetch(
        url: String, into store: CacheStore, cacert: String?, logger: Logger
    ) async throws(CommandFailure) -> Int64? {
        var limits = Publish.transferLimits(cacert: cacert)
        limits.maxAssetSize = Int64(Manifest.maxSize)
        let engine: TransferEngine
        do {
            engine = try TransferEngine(limits: limits)
        } catch {
            throw CommandFailure(message: "cannot start libcurl to fetch --previous \(url): \(error)", status: ExitStatus.manifestUnavailable)
        }
        defer { engine.shutdown() }
        let download = store.temporaryFile("previous")
        defer { _ = download.directory.unlink(download.name) }
        let result = await engine.fetch(TransferRequest(url: url, location: download))
        if result.status == 404 || result.status == 410 {
            logger.warning("--previous \(url): HTTP \(result.status), taken for nothing published there yet")
            return nil
        }
        if let failure = result.failure {
            throw CommandFailure(
                message: "--previous \(url) could not be fetched: \(failure.message); without the version now published, none is signed",
                status: ExitStatus.manifestUnavailable)
        }
        let data = Data(download.directory.contents(of: download.name, limit: Manifest.maxSize) ?? [])
        return try version(in: data, from: url, as: "--previous")
    }

    private static func version(in data: Data, from source: String, as name: String) throws(CommandFailure) -> Int64? {
        do {
            return try Manifest.decode(data).freshness.version
        } catch {
            throw CommandFailure(
                message: "\(name) '\(source)' is not a manifest whose version can be read: \(error); give --previous the manifest now published",
                status: ExitStatus.usage)
        }
    }
}
