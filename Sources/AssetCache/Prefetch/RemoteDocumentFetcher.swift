#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging

/// Fetches the manifest and its signature through one transfer engine, made
/// only if some request is needed. The operator's `--header` values go to
/// the manifest's own origin only: redirects are followed here, not by
/// libcurl, which would send custom headers to any host it is sent to.
final class RemoteDocumentFetcher {
    private let store: CacheStore
    private let limits: TransferLimits
    private let headers: [String]
    private let origin: String
    private let logger: Logger
    private var engine: TransferEngine?
    private var downloads: [FileLocation] = []

    private static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    init(store: CacheStore, limits: TransferLimits, headers: [String], origin: AssetURL, logger: Logger) {
        self.store = store
        var limits = limits
        limits.maxAssetSize = Int64(Manifest.maxSize)
        self.limits = limits
        self.headers = headers
        self.origin = Transfer.hostKey(of: origin.string)
        self.logger = logger
    }

    /// Stops the engine and removes downloads that were not committed.
    func close() {
        engine?.shutdown()
        for download in downloads { download.directory.unlink(download.name) }
    }

    /// The copy to use; throws the transfer's failure message when there is none.
    func resolve(_ url: AssetURL, now: Double) async throws(RemoteFailureMessage) -> RemoteDocument {
        let cached = CachedCopy(store: store, url: url)
        if let cached, cached.isFresh(at: now) {
            return RemoteDocument(url: url, source: .fresh(cached))
        }
        let download = store.temporaryFile("manifest")
        downloads.append(download)
        let result = try await fetch(url, into: download, conditional: cached?.conditionalHeaders ?? [])
        if let cached, result.status == 304 {
            return RemoteDocument(url: url, source: .revalidated(cached, result.headers))
        }
        if let failure = result.failure { throw RemoteFailureMessage(failure.message) }
        return RemoteDocument(url: url, source: .downloaded(download, result))
    }

    private func fetch(_ url: AssetURL, into download: FileLocation, conditional: [String]) async throws(RemoteFailureMessage) -> TransferResult {
        let engine: TransferEngine
        do {
            engine = try self.engine ?? TransferEngine(limits: limits)
        } catch {
            throw RemoteFailureMessage("\(error)")
        }
        self.engine = engine
        var current = url
        var redirects = 0
        while true {
            let sameOrigin = Transfer.hostKey(of: current.string) == origin
            var request = TransferRequest(url: current.string, location: download, headers: conditional + (sameOrigin ? headers : []))
            request.followsRedirects = false
            let result = await engine.fetch(request)
            guard Self.redirectStatuses.contains(result.status), let location = result.headers["location"] else {
                return result
            }
            guard redirects < limits.maxRedirects else {
                throw RemoteFailureMessage("more than \(limits.maxRedirects) redirects from \(url)")
            }
            guard let target = URL(string: location, relativeTo: URL(string: current.string))?.absoluteString,
                  let next = try? AssetURL(parsing: target)
            else {
                throw RemoteFailureMessage("\(current) redirects to '\(location)', which is not an http or https URL")
            }
            if !headers.isEmpty, Transfer.hostKey(of: next.string) != origin {
                logger.debug("\(current) redirects to \(next): the --header values are not sent there (another origin than the manifest's)")
            }
            current = next
            redirects += 1
        }
    }
}

/// Why a remote document could not be had, as one line.
struct RemoteFailureMessage: Error {
    var message: String

    init(_ message: String) {
        self.message = message
    }
}
